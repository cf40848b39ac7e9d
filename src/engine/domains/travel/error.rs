//! One error type for everything read from outside: database files, query
//! files and plan files. It names the file, the line when known, and what is
//! wrong.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataError {
    /// The file, as the caller named it (a relative database path or a CLI path).
    pub file: String,
    /// 1-based line where the problem starts, when it concerns one line.
    pub line: Option<usize>,
    pub message: String,
}

impl DataError {
    pub fn file(file: &str, message: impl Into<String>) -> Self {
        DataError {
            file: file.to_string(),
            line: None,
            message: message.into(),
        }
    }

    pub fn at(file: &str, line: usize, message: impl Into<String>) -> Self {
        DataError {
            file: file.to_string(),
            line: Some(line),
            message: message.into(),
        }
    }
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{} line {}: {}", self.file, line, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for DataError {}
