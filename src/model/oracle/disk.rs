//! The raw on-disk layouts of an Oracle datafile block, as field offsets and
//! sizes (as published dumps and `x$` views establish them), each checked at
//! compile time: its fields follow one another and add up to the size the
//! block dump's structures have.

/// The cache header `kcbh` at the start of every block.
pub mod kcbh {
    /// Offset of `type_kcbh`.
    pub const TYPE_KCBH: usize = 0;
    /// Offset of `frmt_kcbh`.
    pub const FRMT_KCBH: usize = TYPE_KCBH + 1;
    /// Offset of `spare1_kcbh`.
    pub const SPARE1_KCBH: usize = FRMT_KCBH + 1;
    /// Offset of `spare2_kcbh`.
    pub const SPARE2_KCBH: usize = SPARE1_KCBH + 1;
    /// Offset of `rdba_kcbh`.
    pub const RDBA_KCBH: usize = SPARE2_KCBH + 1;
    /// Offset of `bas_kcbh`.
    pub const BAS_KCBH: usize = RDBA_KCBH + 4;
    /// Offset of `wrp_kcbh`.
    pub const WRP_KCBH: usize = BAS_KCBH + 4;
    /// Offset of `seq_kcbh`.
    pub const SEQ_KCBH: usize = WRP_KCBH + 2;
    /// Offset of `flg_kcbh`.
    pub const FLG_KCBH: usize = SEQ_KCBH + 1;
    /// Offset of `chkval_kcbh`.
    pub const CHKVAL_KCBH: usize = FLG_KCBH + 1;
    /// Offset of `spare3_kcbh`.
    pub const SPARE3_KCBH: usize = CHKVAL_KCBH + 2;
    /// The size of the whole structure (`sizeof`).
    pub const SIZE: usize = SPARE3_KCBH + 2;
}
const _: () = assert!(kcbh::SIZE == 20);
const _: () = assert!(kcbh::SIZE == super::KCBH_SIZE);

/// The fixed part of the transaction header `ktbbh`, after `kcbh`; the ITLs follow.
pub mod ktbbh {
    /// Offset of `ktbbhtyp`.
    pub const KTBBHTYP: usize = 0;
    /// `ktbbhsid`: the object id, after three bytes of padding.
    pub const KTBBHSID: usize = KTBBHTYP + 4;
    /// `ktbbhcsc`: the cleanout SCN (base 4, wrap 2, wrap2 2).
    pub const KTBBHCSC: usize = KTBBHSID + 4;
    /// Offset of `ktbbhict`.
    pub const KTBBHICT: usize = KTBBHCSC + 8;
    /// Offset of `ktbbhflg`.
    pub const KTBBHFLG: usize = KTBBHICT + 2;
    /// Offset of `ktbbhfsl`.
    pub const KTBBHFSL: usize = KTBBHFLG + 1;
    /// Offset of `ktbbhfnx`.
    pub const KTBBHFNX: usize = KTBBHFSL + 1;
    /// The size of the whole structure (`sizeof`).
    pub const SIZE: usize = KTBBHFNX + 4;
}
const _: () = assert!(ktbbh::SIZE == 24);
const _: () = assert!(ktbbh::SIZE == super::KTBBH_FIXED_SIZE);

/// One interested transaction list entry `ktbit`.
pub mod itl {
    /// `ktbitxid`: usn 2, slot 2, sequence 4.
    pub const KXIDUSN: usize = 0;
    /// Offset of `kxidslt`.
    pub const KXIDSLT: usize = KXIDUSN + 2;
    /// Offset of `kxidsqn`.
    pub const KXIDSQN: usize = KXIDSLT + 2;
    /// `ktbituba`: dba 4, sequence 2, record 1, spare 1.
    pub const KUBADBA: usize = KXIDSQN + 4;
    /// Offset of `kubaseq`.
    pub const KUBASEQ: usize = KUBADBA + 4;
    /// Offset of `kubarec`.
    pub const KUBAREC: usize = KUBASEQ + 2;
    /// Offset of `ktbitflg`.
    pub const KTBITFLG: usize = KUBAREC + 2;
    /// Offset of `ktbitun`.
    pub const KTBITUN: usize = KTBITFLG + 2;
    /// Offset of `ktbitbas`.
    pub const KTBITBAS: usize = KTBITUN + 2;
    /// The size of the whole structure (`sizeof`).
    pub const SIZE: usize = KTBITBAS + 4;
}
const _: () = assert!(itl::SIZE == 24);
const _: () = assert!(itl::SIZE == super::ITL_SIZE);

/// The table data header `kdbh`.
pub mod kdbh {
    /// Offset of `kdbhflag`.
    pub const KDBHFLAG: usize = 0;
    /// Offset of `kdbhntab`.
    pub const KDBHNTAB: usize = KDBHFLAG + 1;
    /// Offset of `kdbhnrow`.
    pub const KDBHNROW: usize = KDBHNTAB + 1;
    /// Offset of `kdbhfrre`.
    pub const KDBHFRRE: usize = KDBHNROW + 2;
    /// Offset of `kdbhfsbo`.
    pub const KDBHFSBO: usize = KDBHFRRE + 2;
    /// Offset of `kdbhfseo`.
    pub const KDBHFSEO: usize = KDBHFSBO + 2;
    /// Offset of `kdbhavsp`.
    pub const KDBHAVSP: usize = KDBHFSEO + 2;
    /// Offset of `kdbhtosp`.
    pub const KDBHTOSP: usize = KDBHAVSP + 2;
    /// The size of the whole structure (`sizeof`).
    pub const SIZE: usize = KDBHTOSP + 2;
}
const _: () = assert!(kdbh::SIZE == 14);
const _: () = assert!(kdbh::SIZE == super::KDBH_SIZE);

/// The tail: the low 16 bits of the SCN base, the type and the sequence.
pub const TAIL: usize = 4;
const _: () = assert!(TAIL == super::TAIL_SIZE);
