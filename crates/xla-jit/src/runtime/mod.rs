//! What compiled code needs at run time: the thread pool.

pub mod pool;
