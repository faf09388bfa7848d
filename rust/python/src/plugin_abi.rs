//! The Polars expression-plugin ABI (`polars-ffi`'s version 0), written out: the entry points
//! Python Polars looks up in the extension module for a plugin function `f` (`_polars_plugin_f`
//! computes the output, `_polars_plugin_field_f` its field), the plugin's version and the last
//! error message, and the `SeriesExport` struct a series crosses the boundary in. They are what
//! pyo3-polars' `#[polars_expr]` and `polars-ffi` provide; written here over `polars-arrow`'s
//! Arrow C interface, the extension builds neither the query planner (`polars-plan` and the
//! crates it pulls in, which the derive macro depends on) nor `polars-core` and
//! `polars-compute` (which `polars-ffi` depends on): each step cut the cold build (docs/development.md).
//!
//! Invariant: no panic and no error crosses the C boundary: a function's error is stored for
//! `_polars_plugin_get_last_error_message` (a panic as `PANIC`, its message printed only when
//! `POLARS_VERBOSE=1`, as pyo3-polars does) and the return value is left empty, which Polars
//! turns into an exception. An exported series owns its schema and array pointers until Polars
//! calls its `release` (which frees them, not the arrays Polars moved out), as `polars-ffi` does.
//! An imported series ([`Input`]) owns its arrays, read from the exports as `polars-ffi`'s
//! `import_series` reads them; what its values mean is `plugin_input`'s.
//!
//! Imports: no module of the crate (the ABI is the bottom layer the plugin stands on).

use polars_arrow::array::Array;
use polars_arrow::datatypes::{ArrowDataType, Field};
use polars_arrow::ffi::{export_array_to_c, export_field_to_c, import_array_from_c, import_field_from_c, ArrowArray, ArrowSchema};
use polars_error::{polars_err, PolarsResult};
use polars_utils::pl_str::PlSmallStr;
use serde::de::DeserializeOwned;
use std::cell::RefCell;
use std::ffi::CString;
use std::mem::ManuallyDrop;
use std::os::raw::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

/// The plugin ABI's version, `polars-ffi` 0.55's `MAJOR` and `MINOR` (Polars checks it).
const VERSION: (u16, u16) = (0, 1);

/// A series as it crosses the boundary (`polars_ffi::version_0::SeriesExport`: its field and
/// its chunks as Arrow C structs; `#[repr(C)]`, its layout is the ABI).
#[repr(C)]
pub struct SeriesExport {
    pub field: *mut ArrowSchema,
    /// A pointer per chunk, so the export can be released without the arrays.
    pub arrays: *mut *mut ArrowArray,
    pub len: usize,
    pub release: Option<unsafe extern "C" fn(*mut SeriesExport)>,
    pub private_data: *mut c_void,
}

impl Drop for SeriesExport {
    fn drop(&mut self) {
        if let Some(release) = self.release {
            // SAFETY: the exporter's own release of this export.
            unsafe { release(self) }
        }
    }
}

/// Passed to a plugin function (`polars_ffi::version_0::CallerContext`); unused here.
#[repr(C)]
pub struct CallerContext {
    _bitflags: u64,
}

/// One input column as Polars exported it: its name and its chunks.
pub struct Input {
    pub name: PlSmallStr,
    pub dtype: ArrowDataType,
    pub chunks: Vec<Box<dyn Array>>,
}

/// Imports the `n` exported inputs at `ptr`, taking ownership of their arrays as
/// `polars_ffi::version_0::import_series` does.
///
/// # Safety
/// `ptr` points to `n` valid exports, as Polars passes them to a plugin function.
pub unsafe fn import_inputs(ptr: *mut SeriesExport, n: usize) -> PolarsResult<Vec<Input>> {
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        // Read by value: dropping it releases the export's own allocations (not the arrays).
        let export = std::ptr::read(ptr.add(i));
        let field = import_field_from_c(&*export.field)?;
        let mut chunks = Vec::with_capacity(export.len);
        for j in 0..export.len {
            let array = std::ptr::read(*export.arrays.add(j));
            chunks.push(import_array_from_c(array, field.dtype.clone())?);
        }
        out.push(Input { name: field.name.clone(), dtype: field.dtype.clone(), chunks });
        drop(export);
    }
    Ok(out)
}

/// What an export of ours owns until released.
struct PrivateData {
    _schema: Box<ArrowSchema>,
    arrays: Box<[*mut ArrowArray]>,
}

unsafe extern "C" fn release_export(e: *mut SeriesExport) {
    if e.is_null() {
        return;
    }
    let e = &mut *e;
    let private = Box::from_raw(e.private_data as *mut PrivateData);
    for &array in private.arrays.iter() {
        // Free the box, not the array: the importer moved the array out (and releases it).
        drop(Box::from_raw(array as *mut ManuallyDrop<ArrowArray>));
    }
    e.release = None;
}

/// A plugin function's result: one Arrow array, the series `name`.
pub struct Output {
    pub name: PlSmallStr,
    pub array: Box<dyn Array>,
}

/// Exports `out` as a one-chunk series whose field has the array's dtype, nullable (what
/// `polars_ffi::version_0::export_series` writes for the same series).
fn export(out: Output) -> SeriesExport {
    let field = Field::new(out.name, out.array.dtype().clone(), true);
    let schema = Box::new(export_field_to_c(&field));
    let mut arrays: Box<[*mut ArrowArray]> = Box::new([Box::into_raw(Box::new(export_array_to_c(out.array)))]);
    SeriesExport {
        field: schema.as_ref() as *const ArrowSchema as *mut ArrowSchema,
        arrays: arrays.as_mut_ptr(),
        len: arrays.len(),
        release: Some(release_export),
        private_data: Box::into_raw(Box::new(PrivateData { _schema: schema, arrays })) as *mut c_void,
    }
}

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
    let (major, minor) = VERSION;
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
    f: fn(&[Input], K) -> PolarsResult<Output>,
) {
    let run = AssertUnwindSafe(|| -> PolarsResult<Output> {
        let series = import_inputs(inputs, n_inputs)?;
        let bytes = std::slice::from_raw_parts(kwargs, kwargs_len);
        let kw: K = serde_pickle::from_slice(bytes, Default::default())
            .map_err(|e| polars_err!(InvalidOperation: "could not parse kwargs: '{}'", e))?;
        f(&series, kw)
    });
    match catch_unwind(run) {
        Ok(Ok(o)) => *out = export(o),
        Ok(Err(e)) => set_last_error(e.to_string()),
        Err(_) => set_last_error("PANIC".into()),
    }
}

/// The output field of a plugin function: `make(name of the first input)` (nullable, as Polars
/// writes a field).
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
        Ok(Ok(f)) => *out = export_field_to_c(&f),
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
            inputs: *mut $crate::plugin_abi::SeriesExport,
            n_inputs: usize,
            kwargs: *const u8,
            kwargs_len: usize,
            out: *mut $crate::plugin_abi::SeriesExport,
            _context: *mut $crate::plugin_abi::CallerContext,
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
