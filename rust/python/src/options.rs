//! The settings of a fit as they cross from Python: one dict per call (`python/findrs/_core.pyi`'s
//! `FitOptions`, `FitRunsOptions`, `MulticlassOptions`, `AutoOptions`), read into the parts
//! below. A function's options are a tuple of parts ([`Options`]), each part a
//! `#[derive(FromPyObject)]` struct read from the same dict's items, so the functions share the
//! parts whose settings they share instead of repeating field lists; the parts then build the
//! core's [`FitOptions`] / [`CvOptions`].
//!
//! Invariant: a dict with a key no part of the function reads, without a key a part needs, or
//! with a value of the wrong type raises `TypeError` naming the key (an invalid method or
//! widening: `ValueError`, the core's word), never a panic and never a silently ignored setting.
//!
//! Imports: `convert` (error conversion) only.

use crate::convert::core_err;
use findrs_core::{CvOptions, FitOptions, Method, RuleCount, Widen};
use pyo3::exceptions::{PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

/// One part of a function's options: some of the dict's items.
pub trait Part: Sized {
    /// The keys this part reads.
    const KEYS: &'static [&'static str];
    /// Reads the part from the dict (only its own keys).
    fn read(dict: &Bound<'_, PyDict>) -> PyResult<Self>;
}

/// Declares a part: a struct read by `#[derive(FromPyObject)]` from the dict's items (a field
/// marked `#[pyo3(default)]` or `#[pyo3(default = ...)]` may be left out), and its [`Part::KEYS`]
/// from the same field list.
macro_rules! part {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* pub $field:ident: $ty:ty,)* }) => {
        $(#[$m])*
        #[derive(FromPyObject)]
        #[pyo3(from_item_all)]
        pub struct $name {
            $($(#[$fm])* pub $field: $ty,)*
        }

        impl Part for $name {
            const KEYS: &'static [&'static str] = &[$(stringify!($field)),*];

            fn read(dict: &Bound<'_, PyDict>) -> PyResult<Self> {
                dict.as_any().extract()
            }
        }
    };
}

/// A function's options: the parts `T` (a part or a tuple of parts) read from one dict, every
/// key of which some part reads.
pub struct Options<T>(pub T);

/// The parts of a function's options, read together (a part, or a tuple of them).
pub trait Parts: Sized {
    fn keys(out: &mut Vec<&'static str>);
    fn read_all(dict: &Bound<'_, PyDict>) -> PyResult<Self>;
}

impl<A: Part> Parts for A {
    fn keys(out: &mut Vec<&'static str>) {
        out.extend_from_slice(A::KEYS);
    }
    fn read_all(dict: &Bound<'_, PyDict>) -> PyResult<Self> {
        A::read(dict)
    }
}

macro_rules! tuple_parts {
    ($($p:ident),+) => {
        impl<$($p: Part),+> Parts for ($($p,)+) {
            fn keys(out: &mut Vec<&'static str>) {
                $(out.extend_from_slice($p::KEYS);)+
            }
            fn read_all(dict: &Bound<'_, PyDict>) -> PyResult<Self> {
                Ok(($($p::read(dict)?,)+))
            }
        }
    };
}
tuple_parts!(A, B);
tuple_parts!(A, B, C);
tuple_parts!(A, B, C, D);

impl<'a, 'py, T: Parts> FromPyObject<'a, 'py> for Options<T> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let py = obj.py();
        let dict = obj
            .cast::<PyDict>()
            .map_err(|_| PyTypeError::new_err(format!("options must be a dict, not {}", type_name(&obj))))?;
        let mut known = Vec::new();
        T::keys(&mut known);
        for key in dict.keys() {
            let name = key.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!("option keys must be strings, not {}", type_name(&key.as_borrowed())))
            })?;
            let name = name.to_cow()?;
            if !known.contains(&name.as_ref()) {
                return Err(PyTypeError::new_err(format!(
                    "unknown option '{name}' (the options here: {})",
                    known.join(", ")
                )));
            }
        }
        T::read_all(&dict).map(Options).map_err(|e| {
            // A required key missing: the derive's `get_item` raised KeyError(key).
            if e.is_instance_of::<PyKeyError>(py) {
                let key = e.value(py).str().map(|s| s.to_string()).unwrap_or_default();
                return PyTypeError::new_err(format!("missing option {key}"));
            }
            // A value of the wrong type: the derive names the field as "Part.key", the cause
            // says what is wrong; said here by the key alone.
            let message = e.value(py).to_string();
            match message.strip_prefix("failed to extract field ").and_then(|f| f.rsplit_once('.')) {
                Some((_, key)) => {
                    let cause = e.cause(py);
                    let why = cause.as_ref().map(|c| c.to_string()).unwrap_or_default();
                    let err = PyTypeError::new_err(format!("option '{key}': {why}"));
                    err.set_cause(py, cause);
                    err
                }
                None => e,
            }
        })
    }
}

fn type_name(obj: &Borrowed<'_, '_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
}

part! {
    /// What every fit function reads: the method, the runs and where they run.
    pub struct Runs {
        /// `"find-rs"`, `"bo"`, `"bp"` (`fit`: also `"bo+bp"`, both from one set of runs).
        pub method: String,
        /// T, the number of runs.
        pub n_runs: u32,
        pub seed: u64,
        pub shuffle: bool,
        /// How a run's interval ends move: `"no"`, `"open"` or `"nearest"`.
        #[pyo3(default = String::from("no"))]
        pub widen: String,
        /// Threads of the fit's pool (`None`: all cores).
        #[pyo3(default)]
        pub n_jobs: Option<usize>,
    }
}

part! {
    /// One setting's run rules (`fit`, `fit_runs`, `fit_multiclass`; `fit_auto` reads them per
    /// candidate).
    pub struct RunRules {
        pub tolerance: u32,
        /// A share tolerance in [0, 1).
        #[pyo3(default)]
        pub epsilon: f64,
        /// The support filter.
        #[pyo3(default)]
        pub min_support: u32,
        #[pyo3(default)]
        pub simplify: bool,
    }
}

part! {
    /// Which rules vote (`fit`, `fit_multiclass`): BP's K fixed (`n_rules`) or chosen by
    /// `accuracy_ratio` (neither: every rule), and a rule budget.
    pub struct Vote {
        /// BP's K (`None`: chosen by `accuracy_ratio`, or every rule).
        pub n_rules: Option<usize>,
        pub accuracy_ratio: Option<f64>,
        #[pyo3(default)]
        pub max_rules: Option<usize>,
    }
}

part! {
    /// FIND-RS's run (`fit`): the run whose order is presented, or the number of runs to keep
    /// the best of (docs/semantics.md §5.3).
    pub struct FindRs {
        /// 1: the one run `run`.
        pub best_of: u32,
        #[pyo3(default)]
        pub run: u32,
    }
}

part! {
    /// How classes combine (`fit_multiclass`): `"one-vs-rest"`, `"rarest-first"` or
    /// `"frequent-first"`.
    pub struct Multiclass {
        pub combine: String,
    }
}

part! {
    /// The cross-validation of `fit_auto` and its final fit (docs/semantics.md §9.4).
    pub struct Cv {
        pub folds: usize,
        /// Runs per cross-validation fit.
        pub cv_n_runs: u32,
        /// A stratified sample of this many rows is cross-validated.
        #[pyo3(default)]
        pub max_rows: Option<usize>,
        #[pyo3(default = true)]
        pub scale_support: bool,
        /// `false`: stop after the cross-validation.
        #[pyo3(default = true)]
        pub final_fit: bool,
        /// The final FIND-RS fit keeps the best of this many runs.
        pub best_of: u32,
        /// Score the FIND-RS fold models' accuracy-size paths (a choice of the size).
        #[pyo3(default)]
        pub paths: bool,
    }
}

impl Runs {
    /// The methods of `method`, split at `+` (`"bo+bp"`: BO and BP from one set of runs).
    pub fn methods(&self) -> PyResult<Vec<Method>> {
        self.method.split('+').map(Method::parse).collect::<Result<Vec<_>, _>>().map_err(core_err)
    }

    /// The one method of `method`.
    pub fn method(&self) -> PyResult<Method> {
        Method::parse(&self.method).map_err(core_err)
    }

    pub fn widen(&self) -> PyResult<Widen> {
        Widen::parse(&self.widen).map_err(core_err)
    }

    /// The core's options of a fit of `method` with these runs (the others default).
    pub fn fit_options(&self, method: Method) -> PyResult<FitOptions> {
        Ok(FitOptions { method, n_runs: self.n_runs, seed: self.seed, shuffle: self.shuffle, widen: self.widen()?, ..FitOptions::default() })
    }
}

impl RunRules {
    /// `o` with this setting's run rules.
    pub fn apply(&self, o: FitOptions) -> FitOptions {
        FitOptions { tolerance: self.tolerance, epsilon: self.epsilon, min_support: self.min_support, simplify: self.simplify, ..o }
    }
}

impl Vote {
    /// `o` with these voting rules.
    pub fn apply(&self, o: FitOptions) -> FitOptions {
        FitOptions { n_rules: rule_count(self.n_rules, self.accuracy_ratio), max_rules: self.max_rules, ..o }
    }
}

impl FindRs {
    pub fn apply(&self, o: FitOptions) -> FitOptions {
        FitOptions { run: self.run, best_of: self.best_of, ..o }
    }
}

impl Cv {
    /// The core's cross-validation options with `runs`' method, seed, order and widening.
    pub fn cv_options(&self, runs: &Runs) -> PyResult<CvOptions> {
        Ok(CvOptions {
            method: runs.method()?,
            n_runs: self.cv_n_runs,
            folds: self.folds,
            seed: runs.seed,
            shuffle: runs.shuffle,
            max_rows: self.max_rows,
            scale_support: self.scale_support,
            widen: runs.widen()?,
            paths: self.paths,
        })
    }
}

/// BP's K: fixed, chosen by an accuracy ratio, or every rule.
pub fn rule_count(n_rules: Option<usize>, accuracy_ratio: Option<f64>) -> RuleCount {
    match (n_rules, accuracy_ratio) {
        (Some(k), _) => RuleCount::Fixed(k),
        (None, Some(r)) => RuleCount::Auto { accuracy_ratio: r },
        (None, None) => RuleCount::All,
    }
}
