//! Events: every operation completes before it returns, so each event is
//! ready and successful when made.

use super::{destroy, obj};
use crate::error::{args, guard, Error, Result};
use crate::ffi::*;
use crate::handles::{into_handle, Handle, Kind};

/// A completed event: every operation of this plugin finishes before it
/// returns (an operation that fails returns its error instead of an
/// event), so events are ready and successful when made. The byte gives
/// each event its own address, which a handle needs.
struct Event {
    _address: u8,
}

impl Handle for Event {
    const KIND: Kind = Kind::Event;
}

pub(super) fn ready_event() -> *mut PJRT_Event {
    into_handle(Event { _address: 0 })
}

pub(super) unsafe extern "C" fn event_destroy(a: *mut PJRT_Event_Destroy_Args) -> *mut PJRT_Error {
    guard("PJRT_Event_Destroy", || {
        let a = args(a, "PJRT_Event_Destroy")?;
        destroy::<Event, _>(a.event, "the event")?;
        Ok(())
    })
}

pub(super) unsafe extern "C" fn event_is_ready(a: *mut PJRT_Event_IsReady_Args) -> *mut PJRT_Error {
    guard("PJRT_Event_IsReady", || {
        let a = args(a, "PJRT_Event_IsReady")?;
        obj::<Event, _>(a.event, "the event")?;
        a.is_ready = true;
        Ok(())
    })
}

/// Checks that `event` is a live event; its status is success.
fn check_event(event: *mut PJRT_Event) -> Result<()> {
    obj::<Event, _>(event, "the event").map(drop)
}

pub(super) unsafe extern "C" fn event_error_fn(a: *mut PJRT_Event_Error_Args) -> *mut PJRT_Error {
    guard("PJRT_Event_Error", || {
        check_event(args(a, "PJRT_Event_Error")?.event)
    })
}

pub(super) unsafe extern "C" fn event_await(a: *mut PJRT_Event_Await_Args) -> *mut PJRT_Error {
    guard("PJRT_Event_Await", || {
        check_event(args(a, "PJRT_Event_Await")?.event)
    })
}

pub(super) unsafe extern "C" fn event_on_ready(a: *mut PJRT_Event_OnReady_Args) -> *mut PJRT_Error {
    guard("PJRT_Event_OnReady", || {
        let a = args(a, "PJRT_Event_OnReady")?;
        let callback = a
            .callback
            .ok_or_else(|| Error::invalid("the callback is null"))?;
        check_event(a.event)?;
        // SAFETY: the framework's callback, called once with its argument
        // and no error.
        unsafe { callback(std::ptr::null_mut(), a.user_arg) };
        Ok(())
    })
}
