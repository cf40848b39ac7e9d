//! A small CSV reader with the semantics of `pandas.read_csv` defaults that
//! the official TravelPlanner loaders rely on: `,` separator, `"` quoting
//! with doubled quotes, newlines inside quoted fields, blank lines skipped,
//! and pandas' default NA strings (a row with any NA field is what
//! `.dropna()` removes).

use super::error::DataError;

/// The strings pandas 2.x reads as NaN by default (`keep_default_na`).
const NA_STRINGS: &[&str] = &[
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
];

/// Whether pandas would read this field as missing.
pub fn is_na(field: &str) -> bool {
    NA_STRINGS.contains(&field)
}

/// One record and the 1-based line it starts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub line: usize,
    pub fields: Vec<String>,
}

impl Record {
    /// The field at `col`, or "" when the record is short (pandas: NaN).
    pub fn get(&self, col: usize) -> &str {
        self.fields.get(col).map(String::as_str).unwrap_or("")
    }

    /// Whether any of the header's columns is missing or NA (`dropna()`).
    pub fn has_na(&self, width: usize) -> bool {
        self.fields.len() < width || self.fields.iter().any(|f| is_na(f))
    }
}

/// A header and its data records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Record>,
}

impl Table {
    /// Column index by header name.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// Indices of the named columns, or an error naming the first missing one.
    pub fn require(&self, file: &str, names: &[&str]) -> Result<Vec<usize>, DataError> {
        names
            .iter()
            .map(|n| {
                self.column(n).ok_or_else(|| {
                    DataError::at(
                        file,
                        1,
                        format!(
                            "the header has no column \"{n}\" (columns: {})",
                            self.header.join(", ")
                        ),
                    )
                })
            })
            .collect()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    StartRecord,
    StartField,
    InField,
    InQuoted,
    QuoteInQuoted,
}

struct Reader {
    records: Vec<Record>,
    fields: Vec<String>,
    field: String,
    record_line: usize,
}

impl Reader {
    fn end_field(&mut self) {
        self.fields.push(std::mem::take(&mut self.field));
    }
    fn end_record(&mut self) {
        self.end_field();
        self.records.push(Record {
            line: self.record_line,
            fields: std::mem::take(&mut self.fields),
        });
    }
}

/// Splits `text` into records. Errors only on a quoted field that never closes.
pub fn read_records(text: &str, file: &str) -> Result<Vec<Record>, DataError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut r = Reader {
        records: Vec::new(),
        fields: Vec::new(),
        field: String::new(),
        record_line: 1,
    };
    let mut state = State::StartRecord;
    let mut line = 1usize;
    let mut quote_line = 1usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let newline = c == '\n' || c == '\r';
        if c == '\r' && chars.peek() == Some(&'\n') {
            chars.next();
        }
        state = match (state, c) {
            (State::StartRecord, _) if newline => State::StartRecord,
            (State::StartRecord | State::StartField, '"') => {
                if state == State::StartRecord {
                    r.record_line = line;
                }
                quote_line = line;
                State::InQuoted
            }
            (State::StartRecord | State::StartField, ',') => {
                if state == State::StartRecord {
                    r.record_line = line;
                }
                r.end_field();
                State::StartField
            }
            (State::StartField | State::InField | State::QuoteInQuoted, _) if newline => {
                r.end_record();
                State::StartRecord
            }
            (State::InField | State::QuoteInQuoted, ',') => {
                r.end_field();
                State::StartField
            }
            (State::StartRecord, _) => {
                r.record_line = line;
                r.field.push(c);
                State::InField
            }
            (State::StartField | State::InField, _) => {
                r.field.push(c);
                State::InField
            }
            (State::InQuoted, '"') => State::QuoteInQuoted,
            (State::InQuoted, _) => {
                r.field.push(if newline { '\n' } else { c });
                State::InQuoted
            }
            (State::QuoteInQuoted, '"') => {
                r.field.push('"');
                State::InQuoted
            }
            (State::QuoteInQuoted, _) => {
                r.field.push(c);
                State::InField
            }
        };
        if newline {
            line += 1;
        }
    }
    match state {
        State::StartRecord => {}
        State::InQuoted => {
            return Err(DataError::at(
                file,
                quote_line,
                "a quoted field starts here and is never closed",
            ))
        }
        _ => r.end_record(),
    }
    Ok(r.records)
}

/// Reads a CSV file with a header row. Unnamed header cells get pandas'
/// names (`Unnamed: 0`). A record with more fields than the header is an error.
pub fn read_table(text: &str, file: &str) -> Result<Table, DataError> {
    let mut records = read_records(text, file)?.into_iter();
    let header_rec = records
        .next()
        .ok_or_else(|| DataError::file(file, "the file is empty (no header row)"))?;
    let header: Vec<String> = header_rec
        .fields
        .iter()
        .enumerate()
        .map(|(i, h)| {
            if h.is_empty() {
                format!("Unnamed: {i}")
            } else {
                h.clone()
            }
        })
        .collect();
    let mut rows = Vec::new();
    for rec in records {
        if rec.fields.len() > header.len() {
            return Err(DataError::at(
                file,
                rec.line,
                format!(
                    "expected {} fields as in the header, found {}",
                    header.len(),
                    rec.fields.len()
                ),
            ));
        }
        rows.push(rec);
    }
    Ok(Table { header, rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_newlines_and_blank_lines() {
        let t = "a,b,c\n1,\"x, \"\"y\"\"\",3\n\n2,\"multi\nline\",4\r\n5,,6";
        let table = read_table(t, "t.csv").unwrap();
        assert_eq!(table.header, vec!["a", "b", "c"]);
        assert_eq!(table.rows.len(), 3);
        assert_eq!(table.rows[0].fields, vec!["1", "x, \"y\"", "3"]);
        assert_eq!(table.rows[1].fields[1], "multi\nline");
        assert_eq!(table.rows[1].line, 4);
        assert_eq!(table.rows[2].line, 6);
        assert!(table.rows[2].has_na(3));
        assert!(!table.rows[0].has_na(3));
    }

    #[test]
    fn na_strings_short_rows_and_unnamed_columns() {
        let table = read_table(",name,v\n0,None,1\n1,ok\n2,fine,2", "t.csv").unwrap();
        assert_eq!(table.header[0], "Unnamed: 0");
        assert!(table.rows[0].has_na(3));
        assert!(table.rows[1].has_na(3));
        assert!(!table.rows[2].has_na(3));
        assert!(is_na("NA") && is_na("nan") && !is_na(" ") && !is_na("-"));
    }

    #[test]
    fn errors_name_the_line() {
        let e = read_table("a,b\n1,2\n3,4,5\n", "f.csv").unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.to_string().contains("f.csv line 3"), "{e}");
        let e = read_table("a\n\"open\n", "f.csv").unwrap_err();
        assert!(e.message.contains("never closed"));
        assert!(read_table("", "f.csv").is_err());
    }
}
