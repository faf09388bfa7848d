//! The Polars expression-plugin ABI (`polars-ffi`'s version 0), written out: the entry points
//! Python Polars looks up in the extension module for a plugin function `f` (`_polars_plugin_f`
//! computes the output, `_polars_plugin_field_f` its field), the plugin's version and the last
//! error message. They are what pyo3-polars' `#[polars_expr]` generates; written here, the
//! extension needs `polars-core`, `polars-arrow` and `polars-ffi` only, not the query planner
//! (`polars-plan` and the crates it pulls in) that the derive macro depends on, which halves
//! the cold build.
//!
//! Invariant: no panic and no error crosses the C boundary: a function's error is stored for
//! `_polars_plugin_get_last_error_message` (a panic as `PANIC`, its message printed only when
//! `POLARS_VERBOSE=1`, as pyo3-polars does) and the return value is left empty, which Polars
//! turns into an exception.

use polars_arrow::ffi::{export_field_to_c, import_field_from_c, ArrowSchema};
use polars_core::prelude::*;
use crate::plugin_input::{import_inputs, Input};
use polars_ffi::version_0::{export_series, SeriesExport};
use serde::de::DeserializeOwned;
use std::cell::RefCell;
use std::ffi::CString;
use std::os::raw::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(msg: String) {
    let msg = CString::new(msg.replace('\0', " ")).expect("no NUL byte");
    LAST_ERROR.with(|prev| *prev.borrow_mut() = msg);
}

/// # Safety
/// Called by Polars through the plugin ABI; the pointer lives until the thread's next error.
#[no_mangle]
pub unsafe extern "C" fn _polars_plugin_get_last_error_message() -> *const c_char {
    LAST_ERROR.with(|prev| prev.borrow().as_ptr())
}

/// # Safety
/// Called by Polars through the plugin ABI (at least once, before any function).
#[no_mangle]
pub unsafe extern "C" fn _polars_plugin_get_version() -> u32 {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        // A panic's message shows only when asked for (pyo3-polars' behaviour).
        std::panic::set_hook(Box::new(|info| {
            if std::env::var("POLARS_VERBOSE").is_ok_and(|v| v == "1") {
                eprintln!("{info}")
            }
        }));
    });
    let (major, minor) = polars_ffi::get_version();
    ((major as u32) << 16) + minor as u32
}

/// Runs a plugin function: imports the inputs, parses the kwargs (a pickle, as Polars sends
/// them), calls `f` and exports its series into `out`, or records the error or panic.
///
/// # Safety
/// The pointers are the ones Polars passes to `_polars_plugin_<f>`.
pub unsafe fn call<K: DeserializeOwned>(
    inputs: *mut SeriesExport,
    n_inputs: usize,
    kwargs: *const u8,
    kwargs_len: usize,
    out: *mut SeriesExport,
    f: fn(&[Input], K) -> PolarsResult<Series>,
) {
    let run = AssertUnwindSafe(|| -> PolarsResult<Series> {
        let series = import_inputs(inputs, n_inputs)?;
        let bytes = std::slice::from_raw_parts(kwargs, kwargs_len);
        let kw: K = serde_pickle::from_slice(bytes, Default::default())
            .map_err(|e| polars_err!(InvalidOperation: "could not parse kwargs: '{}'", e))?;
        f(&series, kw)
    });
    match catch_unwind(run) {
        Ok(Ok(s)) => *out = export_series(&s),
        Ok(Err(e)) => set_last_error(e.to_string()),
        Err(_) => set_last_error("PANIC".into()),
    }
}

/// The output field of a plugin function: `make(name of the first input)`.
///
/// # Safety
/// The pointers are the ones Polars passes to `_polars_plugin_field_<f>`.
pub unsafe fn field(fields: *mut ArrowSchema, n_fields: usize, out: *mut ArrowSchema, make: fn(PlSmallStr) -> Field) {
    let run = AssertUnwindSafe(|| -> PolarsResult<Field> {
        let name = match n_fields {
            0 => PlSmallStr::from_static("findrs"),
            _ => import_field_from_c(&*fields)?.name.clone(),
        };
        Ok(make(name))
    });
    match catch_unwind(run) {
        Ok(Ok(f)) => *out = export_field_to_c(&f.to_arrow(CompatLevel::newest())),
        Ok(Err(e)) => set_last_error(e.to_string()),
        Err(_) => set_last_error("PANIC".into()),
    }
}

/// Declares the plugin function `$name` (Python calls it by that name): its two entry points,
/// computing with `$f(&inputs, kwargs)` into the field `$field_of(name of the first input)`.
macro_rules! plugin_function {
    ($name:ident, $field:ident, $f:path, $field_of:expr) => {
        /// # Safety
        /// Called by Polars through the plugin ABI.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            inputs: *mut polars_ffi::version_0::SeriesExport,
            n_inputs: usize,
            kwargs: *const u8,
            kwargs_len: usize,
            out: *mut polars_ffi::version_0::SeriesExport,
            _context: *mut polars_ffi::version_0::CallerContext,
        ) {
            $crate::plugin_abi::call(inputs, n_inputs, kwargs, kwargs_len, out, $f)
        }

        /// # Safety
        /// Called by Polars through the plugin ABI.
        #[no_mangle]
        pub unsafe extern "C" fn $field(
            fields: *mut polars_arrow::ffi::ArrowSchema,
            n_fields: usize,
            out: *mut polars_arrow::ffi::ArrowSchema,
            _kwargs: *const u8,
            _kwargs_len: usize,
        ) {
            $crate::plugin_abi::field(fields, n_fields, out, $field_of)
        }
    };
}
pub(crate) use plugin_function;
