/// RFC 4180 records read from text, each with the line of the file where it starts.
///
/// Written here rather than taken from SwiftCSV 0.10.0 or CSV.swift 2.5.2 (both on this machine): neither tells the
/// line a record starts on once a quoted field spans lines, and their errors carry no position (SwiftCSV's
/// `CSVParseError` is a message, CSV.swift's reader stops on a bad quote with no line), while an import must name the
/// line of every error. The grammar is RFC 4180's: fields split by commas, a field in double quotes may hold commas,
/// line breaks and `""` for a quote; records end at CRLF or LF.
enum CSVRecords {
    /// One record: its fields, and the line (from 1) where it starts.
    struct Record: Equatable {
        var line: Int
        var fields: [String]
    }

    /// Text that is not CSV, at `line`.
    struct Malformed: Error, Equatable {
        var line: Int
        var reason: String
    }

    /// The records of `text`, skipping blank lines; stops after `limit` records (the caller then knows there were more).
    static func read(_ text: String, limit: Int) throws(Malformed) -> [Record] {
        let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), newline = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")
        var bytes = Array(text.utf8)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var records: [Record] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var line = 1, recordLine = 1
        var quoted = false, wasQuoted = false
        var index = 0

        func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            wasQuoted = false
        }
        func endRecord() {
            endField()
            if !(fields.count == 1 && fields[0].allSatisfy(\.isWhitespace)) { records.append(Record(line: recordLine, fields: fields)) }
            fields.removeAll(keepingCapacity: true)
        }

        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0 { throw Malformed(line: line, reason: "not CSV: the text holds a NUL byte (a binary file?)") }
            if quoted {
                if byte == quote {
                    if index + 1 < bytes.count, bytes[index + 1] == quote {
                        field.append(quote)
                        index += 1
                    } else {
                        quoted = false
                        wasQuoted = true
                    }
                } else {
                    if byte == newline { line += 1 }
                    field.append(byte)
                }
            } else if byte == comma {
                endField()
            } else if byte == newline || byte == carriageReturn {
                if byte == carriageReturn, index + 1 < bytes.count, bytes[index + 1] == newline { index += 1 }
                endRecord()
                line += 1
                recordLine = line
                if records.count > limit { return records }
            } else if byte == quote {
                guard field.allSatisfy({ $0 == UInt8(ascii: " ") }), !wasQuoted else {
                    throw Malformed(line: line, reason: "not CSV: a quote inside an unquoted field (quote the whole field and double the quote: \"a \"\"b\"\"\")")
                }
                field.removeAll()
                quoted = true
            } else {
                guard !wasQuoted || byte == UInt8(ascii: " ") else {
                    throw Malformed(line: line, reason: "not CSV: text after a closing quote (a field is either quoted as a whole or not)")
                }
                if !wasQuoted { field.append(byte) }
            }
            index += 1
        }
        if quoted { throw Malformed(line: recordLine, reason: "not CSV: a quoted field opened on line \(recordLine) is never closed") }
        if !field.isEmpty || !fields.isEmpty || wasQuoted { endRecord() }
        return records
    }

    /// `field` quoted when it must be (it holds a comma, a quote or a line break).
    static func escape(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
