/// A small RFC 4180 reader for the import file: comma-separated fields, optionally double-quoted (a quote
/// inside a quoted field is doubled), records ended by CRLF or LF, a quoted field may span lines.
///
/// It works on bytes, so a record holding invalid UTF-8 or a NUL is reported by its line number instead
/// of spoiling the file. Why not SwiftCSV or CSV.swift: the format has four short columns, and neither
/// reports the line a record starts on nor bounds a field's length before reading it whole; a dependency
/// would add build time for less than this file does.
struct ImportCSVReader {
    /// One record: the line it starts on (1-based) and its fields, or why it cannot be read.
    struct Record {
        var lineNumber: Int
        var fields: Result<[String], ImportRowError.Reason>
    }

    /// The longest field accepted, in bytes (a base64 app receipt is the long one).
    let maximumFieldBytes: Int
    /// The most fields a record may have.
    let maximumFields: Int

    init(maximumFieldBytes: Int = ImportRow.maximumReceiptBytes, maximumFields: Int = 16) {
        self.maximumFieldBytes = maximumFieldBytes
        self.maximumFields = maximumFields
    }

    /// Every record of `bytes`, in order; blank lines are skipped.
    func records(_ bytes: [UInt8]) -> [Record] {
        var records: [Record] = []
        var index = 0
        var line = 1
        let quote = UInt8(ascii: "\"")
        let comma = UInt8(ascii: ",")
        let cr = UInt8(ascii: "\r")
        let lf = UInt8(ascii: "\n")
        while index < bytes.count {
            let startLine = line
            var fields: [[UInt8]] = []
            var field: [UInt8] = []
            var problem: ImportRowError.Reason?
            var quoted = false
            var wasQuoted = false
            var endOfRecord = false
            while index < bytes.count, !endOfRecord {
                let byte = bytes[index]
                index += 1
                if quoted {
                    if byte == quote {
                        if index < bytes.count, bytes[index] == quote {
                            field.append(quote)
                            index += 1
                        } else {
                            quoted = false
                        }
                    } else {
                        if byte == lf { line += 1 }
                        field.append(byte)
                    }
                } else if byte == quote {
                    if field.isEmpty && !wasQuoted {
                        quoted = true
                        wasQuoted = true
                    } else if problem == nil {
                        problem = .malformedCSV("a quote inside an unquoted field")
                    }
                } else if byte == comma {
                    fields.append(field)
                    field = []
                    wasQuoted = false
                } else if byte == lf {
                    line += 1
                    endOfRecord = true
                } else if byte == cr {
                    if index < bytes.count, bytes[index] == lf { continue }
                    line += 1
                    endOfRecord = true
                } else {
                    if wasQuoted, problem == nil { problem = .malformedCSV("text after a closing quote") }
                    field.append(byte)
                }
                if field.count > maximumFieldBytes, problem == nil {
                    problem = .fieldTooLong(maximumFieldBytes)
                    field = []
                }
                if fields.count > maximumFields, problem == nil {
                    problem = .wrongColumnCount
                    fields = []
                }
            }
            if quoted, problem == nil { problem = .malformedCSV("a quoted field is not closed") }
            fields.append(field)
            if fields.count == 1, fields[0].isEmpty, !wasQuoted, problem == nil { continue }  // a blank line
            if let problem {
                records.append(Record(lineNumber: startLine, fields: .failure(problem)))
                continue
            }
            var strings: [String] = []
            for bytes in fields {
                if bytes.contains(0) {
                    problem = .nulCharacter
                    break
                }
                guard let text = String(validating: bytes, as: UTF8.self) else {
                    problem = .invalidUTF8
                    break
                }
                strings.append(text)
            }
            records.append(Record(lineNumber: startLine, fields: problem.map { .failure($0) } ?? .success(strings)))
        }
        return records
    }
}
