//! Ctrl-C. The process has one SIGINT handler (the `ctrlc` crate's, installed here on
//! first use); it sets every flag registered with [`on_ctrl_c`], among them the
//! process-wide one [`ctrl_c`] returns. A child given such a flag ([`crate::Cmd::stop_on`])
//! has its group killed when it is set: children live in process groups of their own,
//! so the terminal's SIGINT does not reach them.

use crate::Error;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

static FLAGS: Mutex<Vec<Arc<AtomicBool>>> = Mutex::new(Vec::new());
static HANDLER: OnceLock<Result<(), String>> = OnceLock::new();
static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// Sets `flag` on Ctrl-C (SIGINT), from now on.
pub fn on_ctrl_c(flag: Arc<AtomicBool>) -> Result<(), Error> {
    if let Ok(mut f) = FLAGS.lock() {
        f.push(flag);
    }
    HANDLER
        .get_or_init(|| {
            ctrlc::set_handler(|| {
                if let Ok(flags) = FLAGS.lock() {
                    for f in flags.iter() {
                        f.store(true, Ordering::SeqCst);
                    }
                }
            })
            .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(Error::CtrlC)
}

/// The process-wide Ctrl-C flag (the handler is installed on the first call). When the
/// handler cannot be installed the flag is never set: Ctrl-C keeps its default action.
pub fn ctrl_c() -> Arc<AtomicBool> {
    FLAG.get_or_init(|| {
        let f = Arc::new(AtomicBool::new(false));
        let _ = on_ctrl_c(f.clone());
        f
    })
    .clone()
}
