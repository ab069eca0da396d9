import BusContract
import Foundation
import Market
import Money
import TickwireContract

/// Reads a Ghostfolio activity file (CSV or JSON) into activity requests, each line with its identity or its errors.
///
/// Columns (CSV, case aside, with Ghostfolio's own aliases) and members (JSON): `Date` (`date`), `Code` (`symbol`),
/// `Currency`, `Price` (`unitPrice`), `Quantity`, `Action` (`type`), `Fee`, and Tickwire's optional `FeeCurrency`
/// (`feeCurrency`, the fee's currency when it is not `Currency`); `DataSource`, `Account`, `Note` and the rest are read
/// past. Pure: what is stored and the ledger over it are the caller's.
public enum ActivityImport {
    /// The most activity lines one file may hold.
    public static let maxLines = 100_000

    /// One line read: its number, and its activity (with its identity as `requestId`) or its errors.
    public struct Line: Sendable, Equatable {
        /// CSV: the line where the record starts; JSON: the activity's position, from 1.
        public var line: Int
        /// The activity it adds, when it has no error.
        public var request: AddTradeRequest?
        /// What is wrong with it.
        public var errors: [ImportLineError]
    }

    /// A file read: its lines, and what is wrong with it as a whole.
    public struct File: Sendable, Equatable {
        /// Errors of the whole file (line 0, or the header's line).
        public var errors: [ImportLineError]
        /// Every line read.
        public var lines: [Line]
    }

    /// Ghostfolio's names of each column, lower-cased (its `import-activities.service.ts`), and Tickwire's `feecurrency`.
    static let aliases: [(column: Column, names: [String])] = [
        (.date, ["date", "tradedate"]), (.code, ["code", "symbol", "ticker"]), (.currency, ["ccy", "currency", "currencyprimary"]),
        (.price, ["price", "tradeprice", "unitprice", "value"]), (.quantity, ["qty", "quantity", "shares", "units"]),
        (.action, ["action", "buy/sell", "type"]), (.fee, ["commission", "fee", "ibcommission"]), (.feeCurrency, ["feecurrency"]),
    ]

    /// A column an activity is read from.
    enum Column: String, CaseIterable {
        case date = "Date", code = "Code", currency = "Currency", price = "Price", quantity = "Quantity", action = "Action"
        case fee = "Fee", feeCurrency = "FeeCurrency"

        /// The JSON member of the column.
        var member: String {
            switch self {
            case .date: "date"
            case .code: "symbol"
            case .currency: "currency"
            case .price: "unitPrice"
            case .quantity: "quantity"
            case .action: "type"
            case .fee: "fee"
            case .feeCurrency: "feeCurrency"
            }
        }
    }

    /// Reads `content` in `format` against the assets the portfolio knows, dates not after `now`, as activities of
    /// `portfolio` (a valid name: see ``PortfolioNames/validate(_:)``).
    public static func read(
        _ content: String, format: ActivityFileFormat, knownAssets: Set<String>, now: Date, portfolio: String = Trade.mainPortfolio
    ) -> File {
        let reader = LineReader(knownAssets: knownAssets, now: now, portfolio: portfolio)
        switch format {
        case .csv: return readCSV(content, reader: reader)
        case .json: return readJSON(content, reader: reader)
        }
    }

    // MARK: CSV

    static func readCSV(_ content: String, reader: LineReader) -> File {
        let records: [CSVRecords.Record]
        do {
            records = try CSVRecords.read(content, limit: maxLines + 1)
        } catch {
            return File(errors: [ImportLineError(line: error.line, column: nil, reason: error.reason)], lines: [])
        }
        guard let header = records.first else {
            return File(errors: [ImportLineError(line: 0, column: nil, reason: "the file is empty: a CSV needs a header line and one line per activity")], lines: [])
        }
        var index: [Column: Int] = [:]
        var names: [Column: String] = [:]
        for (position, name) in header.fields.enumerated() {
            let trimmed = trimmingSpaces(name)
            let key = trimmed.lowercased()
            guard let column = aliases.first(where: { $0.names.contains(key) })?.column, index[column] == nil else { continue }
            index[column] = position
            names[column] = trimmed
        }
        let required: [Column] = [.date, .code, .currency, .price, .quantity, .action, .fee]
        let missing = required.filter { index[$0] == nil }
        if missing.count == required.count {
            let first = String(header.fields.joined(separator: ",").prefix(80))
            return File(errors: [ImportLineError(line: header.line, column: nil, reason:
                "not a Ghostfolio CSV: its first line must name the columns Date,Code,Currency,Price,Quantity,Action,Fee; it is \(first.debugDescription)")], lines: [])
        }
        if !missing.isEmpty {
            return File(errors: missing.map { ImportLineError(line: header.line, column: $0.rawValue, reason:
                "missing column \($0.rawValue): the header must name it (as one of \(aliasList($0)))") }, lines: [])
        }
        var errors: [ImportLineError] = []
        var rows = records.dropFirst()
        if rows.count > maxLines {
            errors.append(ImportLineError(line: rows[rows.startIndex + maxLines].line, column: nil, reason:
                "more than \(maxLines) activity lines: split the file into files of at most \(maxLines) lines and import each (a part imported twice adds nothing)"))
            rows = rows.prefix(maxLines)
        }
        var reader = reader
        let lines = rows.map { record in
            guard record.fields.count <= header.fields.count else {
                return Line(line: record.line, request: nil, errors: [ImportLineError(line: record.line, column: nil, reason:
                    "\(record.fields.count) fields where the header has \(header.fields.count): a decimal comma (1,5) or a comma in a "
                        + "name splits a field; write decimals with a dot (1.5) and quote a field that holds a comma")])
            }
            return reader.line(record.line) { column in
                guard let position = index[column] else { return (nil, column.rawValue) }
                let name = names[column] ?? column.rawValue
                return (position < record.fields.count ? record.fields[position] : nil, name)
            }
        }
        return File(errors: errors, lines: lines)
    }

    /// Ghostfolio's names of `column`, for an error.
    static func aliasList(_ column: Column) -> String {
        (aliases.first { $0.column == column }?.names ?? []).joined(separator: ", ")
    }

    // MARK: JSON

    /// One member of a JSON activity as text: a string, or a number's exact digits.
    struct JSONField: Decodable {
        var text: String?

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                text = nil
            } else if let string = try? container.decode(String.self) {
                text = string
            } else if let number = try? container.decode(Decimal.self) {
                text = number.description
            } else if let flag = try? container.decode(Bool.self) {
                text = String(flag)
            } else {
                text = "(an object or array)"
            }
        }
    }

    /// A JSON activity: each member as text, or nil when it was no object.
    struct JSONActivity: Decodable {
        var members: [String: JSONField]?

        init(from decoder: any Decoder) throws {
            members = try? decoder.singleValueContainer().decode([String: JSONField].self)
        }
    }

    /// A Ghostfolio JSON export: only its activities are read.
    struct JSONFile: Decodable {
        var activities: [JSONActivity]
    }

    static func readJSON(_ content: String, reader: LineReader) -> File {
        let file: JSONFile
        do {
            file = try JSONDecoder().decode(JSONFile.self, from: Data(content.utf8))
        } catch DecodingError.keyNotFound(let key, _) where key.stringValue == "activities" {
            return File(errors: [ImportLineError(line: 0, column: "activities", reason:
                "not a Ghostfolio JSON export: it has no \"activities\" array")], lines: [])
        } catch {
            let reason = (try? JSONSerialization.jsonObject(with: Data(content.utf8), options: [.fragmentsAllowed])) == nil
                ? "not JSON: \(error)" : "not a Ghostfolio JSON export: expected an object whose \"activities\" is an array of objects"
            return File(errors: [ImportLineError(line: 0, column: nil, reason: reason)], lines: [])
        }
        var errors: [ImportLineError] = []
        var activities = file.activities[...]
        if activities.count > maxLines {
            errors.append(ImportLineError(line: maxLines + 1, column: nil, reason:
                "more than \(maxLines) activities: split the file into files of at most \(maxLines) activities and import each (a part imported twice adds nothing)"))
            activities = activities.prefix(maxLines)
        }
        var reader = reader
        let lines = activities.enumerated().map { offset, activity in
            let number = offset + 1
            guard let members = activity.members else {
                return Line(line: number, request: nil, errors: [ImportLineError(line: number, column: nil, reason: "an activity must be a JSON object")])
            }
            return reader.line(number) { column in (members[column.member]?.text, column.member) }
        }
        return File(errors: errors, lines: lines)
    }

    // MARK: Lines

    /// Reads lines into requests of one portfolio, giving each its identity (counting lines with the same fields, so two
    /// equal lines are two activities and a file imported twice into a portfolio gives the same identities).
    struct LineReader {
        let knownAssets: Set<String>
        let now: Date
        let portfolio: String
        var seen: [String: Int] = [:]

        /// The line numbered `number`, its columns' text and names given by `field`.
        mutating func line(_ number: Int, field: (Column) -> (text: String?, name: String)) -> Line {
            var errors: [ImportLineError] = []
            func fail(_ column: Column?, _ reason: String) {
                errors.append(ImportLineError(line: number, column: column.map { field($0).name }, reason: reason))
            }
            func text(_ column: Column) -> String? {
                let value = field(column).text.map(ActivityImport.trimmingSpaces)
                return value?.isEmpty == false ? value : nil
            }
            func required(_ column: Column) -> String? {
                guard let value = text(column) else {
                    fail(column, "missing \(field(column).name): every line needs it")
                    return nil
                }
                return value
            }
            func amount(_ column: Column, emptyIsZero: Bool = false) -> ExactDecimal? {
                guard let value = emptyIsZero ? (text(column) ?? "0") : required(column) else { return nil }
                do {
                    return try ActivityImport.amount(value)
                } catch {
                    fail(column, "\(field(column).name) \(value.debugDescription): \(error.reason)")
                    return nil
                }
            }

            let date: Date? = required(.date).flatMap { value in
                do throws(FieldError) {
                    let date = try ActivityImport.date(value)
                    guard date.timeIntervalSince(now) <= TradeValidation.clockSkew else {
                        throw FieldError(reason: "\(value.debugDescription) is in the future: an activity happened already")
                    }
                    return date
                } catch {
                    fail(.date, error.reason)
                    return nil
                }
            }
            let kind: ActivityKind? = required(.action).flatMap { value in
                do throws(FieldError) { return try ActivityImport.kind(value) } catch {
                    fail(.action, error.reason)
                    return nil
                }
            }
            let currency: String? = required(.currency).flatMap { value in
                do { return try TradeValidation.knownCurrency(value, knownAssets: knownAssets, what: "currency") } catch {
                    fail(.currency, Self.reason(error))
                    return nil
                }
            }
            let asset: String? = required(.code).flatMap { value in
                do { return try ActivityImport.asset(value, currency: currency, knownAssets: knownAssets) } catch {
                    fail(.code, Self.reason(error))
                    return nil
                }
            }
            let quantity = amount(.quantity), price = amount(.price), fee = amount(.fee, emptyIsZero: true)
            var feeCurrency = currency
            if let value = text(.feeCurrency) {
                do { feeCurrency = try TradeValidation.knownCurrency(value, knownAssets: knownAssets, what: "fee currency") } catch {
                    fail(.feeCurrency, Self.reason(error))
                    feeCurrency = nil
                }
            }
            guard errors.isEmpty, let date, let kind, let currency, let asset, let quantity, let price, let fee, let feeCurrency else {
                return Line(line: number, request: nil, errors: errors)
            }
            let feeAmount = fee.isZero ? nil : CurrencyAmount(amount: fee, currency: feeCurrency)
            var request = AddTradeRequest(kind: kind, asset: asset, amount: quantity, price: price, currency: currency, fee: feeAmount,
                                          date: date, requestId: "", portfolio: portfolio)
            switch kind {
            case .buy, .sell, .transferIn, .transferOut:
                if quantity.isZero { fail(.quantity, "Quantity must be more than 0 for a \(kind.rawValue)") }
                if kind == .transferOut, !price.isZero { fail(.price, "a transfer_out takes its cost from the lots it moves: its Price must be 0") }
                if kind == .transferIn || kind == .transferOut, feeAmount != nil {
                    fail(.fee, "a \(kind.rawValue) carries no fee: its Fee must be 0 (record the fee on a line of its own, Action fee)")
                }
            case .fee:
                guard let feeAmount else {
                    fail(.fee, "a fee line's amount is its Fee column, which must be more than 0")
                    return Line(line: number, request: nil, errors: errors)
                }
                request.amount = .zero
                request.price = .zero
                request.currency = feeAmount.currency
            }
            guard errors.isEmpty else { return Line(line: number, request: nil, errors: errors) }
            let key = ActivityImport.identityKey(request)
            let occurrence = seen[key, default: 0] + 1
            seen[key] = occurrence
            request.requestId = ActivityImport.identity(key, occurrence: occurrence)
            do {
                request = try TradeValidation.validate(request, knownAssets: knownAssets, now: now)
            } catch {
                let reason = Self.reason(error)
                fail(reason.contains("future") ? .date : nil, reason)
                return Line(line: number, request: nil, errors: errors)
            }
            return Line(line: number, request: request, errors: [])
        }

        /// An error's reason without JSON-RPC's "invalid params: ".
        static func reason(_ error: any Error) -> String {
            let text = (error as? RPCError)?.message ?? "\(error)"
            return text.hasPrefix("invalid params: ") ? String(text.dropFirst("invalid params: ".count)) : text
        }
    }

    // MARK: Fields

    /// `text` without the spaces around it: the scalars of Foundation's `CharacterSet.whitespaces` (Unicode's Zs, the tab
    /// and, as swift-corelibs-foundation has it, U+200B), trimmed scalar by scalar as `trimmingCharacters(in:)` does but
    /// without bridging to NSString; `text` itself when there is nothing to trim.
    static func trimmingSpaces(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        if first == scalars.startIndex, scalars.index(after: last) == scalars.endIndex { return text }
        return String(scalars[first...last])
    }

    /// Whether `scalar` is in Foundation's `CharacterSet.whitespaces` (a test checks every scalar against it).
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    /// Why a field cannot be read.
    struct FieldError: Error {
        var reason: String
    }

    /// `text` as an amount: plain digits with a dot for decimals; a leading minus is dropped, as Ghostfolio does.
    static func amount(_ text: String) throws(FieldError) -> ExactDecimal {
        // A comma that is a character of its own (not one a combining mark follows), looked for only when its byte is there.
        if text.utf8.contains(UInt8(ascii: ",")), text.contains("," as Character) {
            let fixed = text.replacingOccurrences(of: ".", with: "").replacingOccurrences(of: ",", with: ".")
            throw FieldError(reason: "has a comma: write decimals with a dot and no thousands separators (\(fixed))")
        }
        let digits = text.hasPrefix("-") ? String(text.dropFirst()) : text
        guard let value = try? ExactDecimal(digits) else { throw FieldError(reason: "is not a number (write it as 12.5)") }
        return value
    }

    /// `text` as an activity kind: Ghostfolio's buy, sell and fee, and Tickwire's transfer_in and transfer_out.
    static func kind(_ text: String) throws(FieldError) -> ActivityKind {
        let name = text.lowercased()
        if let kind = ActivityKind(rawValue: name) { return kind }
        if ["dividend", "interest", "liability", "item"].contains(name) {
            throw FieldError(reason: "\(text.uppercased()) is not supported yet: Tickwire records buy, sell, fee, transfer_in and transfer_out")
        }
        throw FieldError(reason: "unknown Action \(text.debugDescription): one of buy, sell, fee, transfer_in, transfer_out")
    }

    /// The asset `code` names: a known asset, or Ghostfolio's Yahoo name of a coin in the line's currency (`BTCUSD` in USD is BTC).
    static func asset(_ code: String, currency: String?, knownAssets: Set<String>) throws -> String {
        let symbol = code.uppercased()
        if let currency, !knownAssets.contains(symbol), symbol.hasSuffix(currency), knownAssets.contains(String(symbol.dropLast(currency.count))) {
            return String(symbol.dropLast(currency.count))
        }
        return try TradeValidation.knownAsset(code, knownAssets: knownAssets)
    }

    /// `text` as a moment: Ghostfolio's day formats (dd-MM-yyyy, dd/MM/yyyy, dd.MM.yyyy, yyyy-MM-dd, yyyy/MM/dd,
    /// yyyy.MM.dd, yyyyMMdd) at midnight UTC, or ISO 8601 with a time and `Z` or an offset.
    static func date(_ text: String) throws(FieldError) -> Date {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count, !range.isEmpty else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        let expected = "write it as yyyy-MM-dd, dd-MM-yyyy, dd/MM/yyyy, dd.MM.yyyy, yyyyMMdd or ISO 8601 (2021-09-16T10:00:00Z)"
        var year: Int?, month: Int?, day: Int?
        var seconds = 0
        if bytes.count == 8 {
            (year, month, day) = (number(0..<4), number(4..<6), number(6..<8))
        } else if bytes.count == 10, [UInt8(ascii: "-"), UInt8(ascii: "/"), UInt8(ascii: ".")].contains(bytes[2]), bytes[5] == bytes[2] {
            (day, month, year) = (number(0..<2), number(3..<5), number(6..<10))
        } else if bytes.count >= 10, [UInt8(ascii: "-"), UInt8(ascii: "/"), UInt8(ascii: ".")].contains(bytes[4]), bytes[7] == bytes[4] {
            (year, month, day) = (number(0..<4), number(5..<7), number(8..<10))
            if bytes.count > 10 {
                guard bytes[4] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "), bytes.count >= 20,
                      let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
                      bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), hour < 24, minute < 60, second < 60
                else { throw FieldError(reason: "\(text.debugDescription) is not a date: \(expected)") }
                var index = 19
                var fraction = ""
                if bytes[index] == UInt8(ascii: ".") {
                    index += 1
                    while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                        fraction.append(Character(UnicodeScalar(bytes[index])))
                        index += 1
                    }
                    guard !fraction.isEmpty, fraction.count <= 3 else {
                        throw FieldError(reason: "\(text.debugDescription): at most milliseconds (3 digits after the seconds)")
                    }
                }
                var offset = 0
                if index == bytes.count - 1, bytes[index] == UInt8(ascii: "Z") {
                    offset = 0
                } else if index == bytes.count - 6, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"),
                          let offsetHours = number(index + 1..<index + 3), bytes[index + 3] == UInt8(ascii: ":"),
                          let offsetMinutes = number(index + 4..<index + 6) {
                    offset = (offsetHours * 3600 + offsetMinutes * 60) * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
                } else {
                    throw FieldError(reason: "\(text.debugDescription) has a time but no zone: end it with Z or an offset (+02:00)")
                }
                seconds = hour * 3600 + minute * 60 + second - offset
                let milliseconds = Int(fraction.padding(toLength: 3, withPad: "0", startingAt: 0)) ?? 0
                guard let year, let month, let day else { throw FieldError(reason: "\(text.debugDescription) is not a date: \(expected)") }
                try checkDay(text, year: year, month: month, day: day)
                let days = CalendarDay(year: year, month: month, day: day).daysSince1970
                return Date(timeIntervalSince1970: Double(days * 86_400 + seconds) + Double(milliseconds) / 1000)
            }
        }
        guard let year, let month, let day else { throw FieldError(reason: "\(text.debugDescription) is not a date: \(expected)") }
        try checkDay(text, year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(CalendarDay(year: year, month: month, day: day).daysSince1970 * 86_400 + seconds))
    }

    /// Throws unless `day` exists in `month` of `year`.
    static func checkDay(_ text: String, year: Int, month: Int, day: Int) throws(FieldError) {
        let names = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
        guard (1...12).contains(month) else { throw FieldError(reason: "\(text.debugDescription) is not a date: there is no month \(month)") }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else {
            throw FieldError(reason: "\(text.debugDescription) is not a date: \(names[month - 1]) \(year) has \(days) days")
        }
    }

    // MARK: Identity

    /// The fields that make a line's identity, their amounts without trailing zeros (`298.580` and `298.58` are the same),
    /// and its portfolio unless it is `main` (whose lines kept the identities they had before there were several portfolios).
    static func identityKey(_ request: AddTradeRequest) -> String {
        /// The decimal's text (ASCII) without the zeros that end its fraction, nor a dot left last.
        func plain(_ value: ExactDecimal) -> String {
            let text = value.description
            guard text.utf8.contains(UInt8(ascii: ".")), let last = text.utf8.lastIndex(where: { $0 != UInt8(ascii: "0") }) else { return text }
            return String(text[..<(text.utf8[last] == UInt8(ascii: ".") ? last : text.utf8.index(after: last))])
        }
        let milliseconds = Int64((request.date.timeIntervalSince1970 * 1000).rounded())
        return [request.kind.rawValue, request.asset.uppercased(), plain(request.amount), plain(request.price), request.currency.uppercased(),
                request.fee.map { plain($0.amount) } ?? "0", request.fee?.currency.uppercased() ?? "", String(milliseconds)].joined(separator: "|")
            + (request.portfolio.map { $0 == Trade.mainPortfolio ? "" : "|portfolio=" + $0 } ?? "")
    }

    /// The identity of the `occurrence`-th line with fields `key`: `import-` and the 128-bit FNV-1a hash of `key#occurrence`,
    /// in 32 lower-case hex digits.
    static func identity(_ key: String, occurrence: Int) -> String {
        var hash: UInt128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d
        func add(_ bytes: some Sequence<UInt8>) {
            for byte in bytes {
                hash ^= UInt128(byte)
                hash = hash &* 0x0000_0000_0100_0000_0000_0000_0000_013b
            }
        }
        add(key.utf8)
        add(CollectionOfOne(UInt8(ascii: "#")))
        add(String(occurrence).utf8)
        let digits = Array("0123456789abcdef".utf8)
        var text = Array("import-".utf8)
        text.reserveCapacity(39)
        for shift in stride(from: 124, through: 0, by: -4) {
            text.append(digits[Int(truncatingIfNeeded: hash >> shift) & 0xF])
        }
        return String(decoding: text, as: UTF8.self)
    }

    // MARK: Ledger

    /// Every sell or transfer out among `activities` that takes more than its portfolio holds at its date (each checked
    /// against what the ones before it leave, an overdrawing one taking nothing).
    public static func overdrafts(in activities: [Trade]) throws -> [ActivityLedger.Overdraft] {
        var held: [ActivityLedger.Position: ExactDecimal] = [:]
        var found: [ActivityLedger.Overdraft] = []
        for trade in ActivityLedger.ordered(activities) {
            let position = ActivityLedger.Position(trade)
            let before = held[position] ?? .zero
            switch trade.kind {
            case .buy, .transferIn: held[position] = try before + trade.amount
            case .sell, .transferOut:
                if trade.amount <= before { held[position] = try before - trade.amount } else { found.append(.init(trade: trade, held: before)) }
            case .fee: continue
            }
        }
        return found
    }
}
