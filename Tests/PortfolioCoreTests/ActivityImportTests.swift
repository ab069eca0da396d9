import Foundation
import Money
@testable import PortfolioEngine
import Testing
import TickwireContract

/// A Ghostfolio file of Tests/PortfolioCoreTests/Fixtures/ghostfolio (see its PROVENANCE.md).
func ghostfolioFixture(_ name: String) throws -> String {
    let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures/ghostfolio"))
    return try String(contentsOf: url, encoding: .utf8)
}

/// A moment from its ISO 8601 text.
func moment(_ text: String) throws -> Date { try ActivityImport.date(text) }

@Suite("Activity import and export: Ghostfolio's CSV and JSON, line by line")
struct ActivityImportTests {
    let known: Set<String> = ["BTC", "ETH"]
    let now = Date(timeIntervalSince1970: 1_795_000_000)   // 2026-11-18

    func read(_ content: String, _ format: ActivityFileFormat = .csv) -> ActivityImport.File {
        ActivityImport.read(content, format: format, knownAssets: known, now: now)
    }

    /// The only error of a one-line CSV after `header`.
    func error(_ line: String, header: String = "Date,Code,Currency,Price,Quantity,Action,Fee") throws -> ImportLineError {
        let file = read(header + "\n" + line + "\n")
        #expect(file.errors.isEmpty)
        let errors = try #require(file.lines.first).errors
        #expect(errors.count == 1, "\(errors)")
        return try #require(errors.first)
    }

    /// Ghostfolio's own `btcusd.csv` imports whole: its Yahoo name BTCUSD in USD is BTC, its dd/MM/yyyy date midnight UTC.
    @Test func ghostfoliosCSVImports() throws {
        let file = read(try ghostfolioFixture("btcusd.csv"))
        #expect(file.errors.isEmpty)
        let line = try #require(file.lines.first)
        #expect(file.lines.count == 1 && line.line == 2 && line.errors.isEmpty)
        let request = try #require(line.request)
        #expect(request.kind == .buy && request.asset == "BTC" && request.currency == "USD" && request.fee == nil)
        let price = try dec("44558.42")
        #expect(request.amount == 1 && request.price == price)
        #expect(request.date == (try moment("2021-12-12T00:00:00.000Z")))
        #expect(request.requestId.hasPrefix("import-") && request.requestId.count == 39)
    }

    /// Ghostfolio's JSON exports import whole, their JSON numbers read exactly; the same activity in CSV and in JSON
    /// has the same identity (so importing both adds it once).
    @Test func ghostfoliosJSONImports() throws {
        let one = read(try ghostfolioFixture("btcusd.json"), .json)
        #expect(one.errors.isEmpty)
        let buy = try #require(one.lines.first?.request)
        #expect(buy.fee == CurrencyAmount(amount: try dec("4.46"), currency: "USD") && buy.price.description == "44558.42")

        let two = read(try ghostfolioFixture("btcusd-buy-and-sell-partially.json"), .json)
        #expect(two.errors.isEmpty && two.lines.allSatisfy(\.errors.isEmpty))
        let requests = two.lines.compactMap(\.request)
        #expect(requests.map(\.kind) == [.buy, .sell])
        #expect(requests.map(\.amount) == [2, 1] && requests.map(\.price.description) == ["320.43", "14156.4"])
        #expect(requests.map(\.date) == [try moment("2015-01-01T00:00:00Z"), try moment("2017-12-31T00:00:00Z")])
        #expect(two.lines.map(\.line) == [1, 2])

        let csv = read("Date,Code,Currency,Price,Quantity,Action,Fee\n12-12-2021,BTC,USD,44558.420,1.0,BUY,4.460\n")
        #expect(csv.lines.first?.request?.requestId == buy.requestId, "298.580 and 298.58 are one amount; CSV and JSON one activity")
    }

    /// Every line of Ghostfolio's `sample.csv` and `invalid-multi-line.csv` has an error named by line and column:
    /// assets Tickwire does not know, Ghostfolio's dividend (not supported yet), an unknown action, a date in 2050.
    @Test func ghostfoliosSamplesNameEachLinesError() throws {
        let sample = read(try ghostfolioFixture("sample.csv"))
        #expect(sample.errors.isEmpty && sample.lines.map(\.line) == [2, 3, 4, 5])
        #expect(sample.lines.allSatisfy { $0.request == nil })
        #expect(sample.lines[0].errors == [ImportLineError(line: 2, column: "Code", reason: "unknown asset Account Opening Fee")])
        #expect(sample.lines[1].errors == [ImportLineError(line: 3, column: "Code", reason: "unknown asset MSFT")])
        #expect(sample.lines[2].errors.contains(ImportLineError(line: 4, column: "Action", reason:
            "DIVIDEND is not supported yet: Tickwire records buy, sell, fee, transfer_in and transfer_out")))
        #expect(sample.lines[3].errors.map(\.column) == ["Date", "Code"])
        #expect(sample.lines[3].errors.first?.reason == "\"20500606\" is in the future: an activity happened already")

        let invalid = read(try ghostfolioFixture("invalid-multi-line.csv"))
        #expect(invalid.lines[2].errors.contains(ImportLineError(line: 4, column: "Action", reason:
            "unknown Action \"<invalid>\": one of buy, sell, fee, transfer_in, transfer_out")))
        for type in ["interest", "LIABILITY", "Item"] {
            #expect(try error("2021-01-01,BTC,USD,1,1,\(type),0").reason.hasPrefix("\(type.uppercased()) is not supported yet"))
        }
    }

    /// The bad input, each error naming its line, its column and the fix.
    @Test func badLinesAreNamed() throws {
        #expect(try error("2023-02-30,BTC,USD,100,1,buy,0") ==
                ImportLineError(line: 2, column: "Date", reason: "\"2023-02-30\" is not a date: February 2023 has 28 days"))
        #expect(try error("29.02.2023,BTC,USD,100,1,buy,0").reason == "\"29.02.2023\" is not a date: February 2023 has 28 days")
        #expect(try error("2024-13-01,BTC,USD,100,1,buy,0").reason == "\"2024-13-01\" is not a date: there is no month 13")
        #expect(try error("yesterday,BTC,USD,100,1,buy,0").reason.hasPrefix("\"yesterday\" is not a date: write it as yyyy-MM-dd"))
        #expect(try error("2024-01-01,BTC,USD,100,\"1,5\",buy,0") == ImportLineError(line: 2, column: "Quantity", reason:
            "Quantity \"1,5\": has a comma: write decimals with a dot and no thousands separators (1.5)"))
        #expect(try error("2024-01-01,BTC,USD,\"1.234,50\",1,buy,0").reason.hasSuffix("(1234.50)"))
        let split = try error("2024-01-01,BTC,USD,100,1,5,buy,0")
        #expect(split.column == nil && split.reason.hasPrefix("8 fields where the header has 7: a decimal comma (1,5)"))
        #expect(try error("2024-01-01,DOGE,USD,100,1,buy,0") == ImportLineError(line: 2, column: "Code", reason: "unknown asset DOGE"))
        #expect(try error("2024-01-01,BTC,USD,100,1,buy,2,XYZ", header: "Date,Code,Currency,Price,Quantity,Action,Fee,FeeCurrency") ==
                ImportLineError(line: 2, column: "FeeCurrency", reason:
                    "unknown fee currency XYZ: not an ISO 4217 currency, a metal or an asset the portfolio knows"))
        #expect(try error("2024-01-01,BTC,XYZ,0,0,fee,2").column == "Currency")
        #expect(try error("2024-01-01,BTC,USD,0,0,fee,0") ==
                ImportLineError(line: 2, column: "Fee", reason: "a fee line's amount is its Fee column, which must be more than 0"))
        #expect(try error("2024-01-01,BTC,USD,abc,1,buy,0").reason == "Price \"abc\": is not a number (write it as 12.5)")
        #expect(try error("2024-01-01,,USD,100,1,buy,0") == ImportLineError(line: 2, column: "Code", reason: "missing Code: every line needs it"))
        #expect(try error("2024-01-01,BTC,USD,100,0,sell,0").column == "Quantity")
        #expect(try error("2024-01-01,BTC,USD,100,1,transfer_out,0").column == "Price")
        #expect(try error("2024-01-01,BTC,USD,100,1,transfer_in,3").column == "Fee")

        let twoErrors = try #require(read("Date,Code,Currency,Price,Quantity,Action,Fee\n2023-02-30,DOGE,USD,1,1,buy,0\n").lines.first)
        #expect(twoErrors.errors.map(\.column) == ["Date", "Code"], "every error of a line, not only its first")
    }

    /// A header without a column names it (once, for the whole file); a file that is not CSV, or not a Ghostfolio
    /// CSV, or not JSON, says so.
    @Test func badFilesAreNamed() throws {
        let missing = read("Date,Code,Currency,Price,Action,Fee\n2024-01-01,BTC,USD,100,buy,0\n")
        #expect(missing.lines.isEmpty)
        #expect(missing.errors == [ImportLineError(line: 1, column: "Quantity", reason:
            "missing column Quantity: the header must name it (as one of qty, quantity, shares, units)")])
        let binary = read("PK\u{3}\u{4}\u{0}\u{0}binary")
        #expect(binary.errors == [ImportLineError(line: 1, column: nil, reason: "not CSV: the text holds a NUL byte (a binary file?)")])
        let prose = read("Dear user,\nthis is a letter.\n")
        #expect(prose.errors.first?.reason.hasPrefix("not a Ghostfolio CSV: its first line must name the columns") == true)
        #expect(read(try ghostfolioFixture("btcusd.json")).errors.first?.reason.hasPrefix("not CSV: text after a closing quote") == true)
        #expect(read("Date,Code,Currency,Price,Quantity,Action,Fee\n\"2024-01-01,BTC\n").errors ==
                [ImportLineError(line: 2, column: nil, reason: "not CSV: a quoted field opened on line 2 is never closed")])
        #expect(read("").errors.first?.reason.hasPrefix("the file is empty") == true)
        #expect(read("Date,Code,Currency,Price,Quantity,Action,Fee\n", .json).errors.first?.reason.hasPrefix("not JSON") == true)
        #expect(read("{\"accounts\": []}", .json).errors == [ImportLineError(line: 0, column: "activities", reason:
            "not a Ghostfolio JSON export: it has no \"activities\" array")])
        let member = read("{\"activities\": [{\"date\": \"2024-01-01\", \"symbol\": \"BTC\", \"type\": \"BUY\", \"quantity\": 1, \"fee\": 0, \"currency\": \"USD\"}, 7]}", .json)
        #expect(member.lines.map(\.errors) == [[ImportLineError(line: 1, column: "unitPrice", reason: "missing unitPrice: every line needs it")],
                                              [ImportLineError(line: 2, column: nil, reason: "an activity must be a JSON object")]])
    }

    /// RFC 4180: quoted fields keep commas, doubled quotes and line breaks, and a record after a field that spans lines
    /// has the line it starts on; CRLF ends a record as LF does; blank lines are skipped; a BOM is read past.
    @Test func csvQuotingAndLines() throws {
        let text = "\u{FEFF}a,b,c\r\n\"1,5\",\"say \"\"hi\"\"\",\"two\nlines\"\r\n\r\nx , y,\n"
        let records = try CSVRecords.read(text, limit: 10)
        #expect(records == [
            .init(line: 1, fields: ["a", "b", "c"]), .init(line: 2, fields: ["1,5", "say \"hi\"", "two\nlines"]),
            .init(line: 5, fields: ["x ", " y", ""]),
        ])
        #expect(throws: CSVRecords.Malformed(line: 1, reason:
            "not CSV: a quote inside an unquoted field (quote the whole field and double the quote: \"a \"\"b\"\"\")")) {
            try CSVRecords.read("ab\"c\n", limit: 10)
        }
        #expect(CSVRecords.escape("a,b") == "\"a,b\"" && CSVRecords.escape("say \"x\"") == "\"say \"\"x\"\"\"" && CSVRecords.escape("BTC") == "BTC")
    }

    /// Ghostfolio's day formats are one day at midnight UTC; ISO 8601 keeps its time, milliseconds and offset.
    @Test func dateFormats() throws {
        let day = try moment("2021-09-16")
        for text in ["16-09-2021", "16/09/2021", "16.09.2021", "2021/09/16", "2021.09.16", "20210916", "2021-09-16T00:00:00Z"] {
            #expect(try moment(text) == day, "\(text)")
        }
        #expect(day.timeIntervalSince1970 == 1_631_750_400)
        let afternoon: TimeInterval = 1_631_750_400 + 37_815.25   // 10:30:15.25 UTC
        #expect(try moment("2021-09-16T12:30:15.250+02:00").timeIntervalSince1970 == afternoon)
        #expect(try moment("2024-02-29").timeIntervalSince1970 == 1_709_164_800)
        #expect(throws: ActivityImport.FieldError.self) { try moment("2021-09-16T12:30:15") }
        #expect(ActivityExport.format(try moment("2021-09-16T12:30:15.250Z")) == "2021-09-16T12:30:15.250Z")
        #expect(ActivityExport.format(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59.000Z")
    }

    /// A line's identity depends on its fields only: the same file read twice gives the same identities, two equal
    /// lines two identities (two activities), another amount another identity.
    @Test func lineIdentity() throws {
        let text = "Date,Code,Currency,Price,Quantity,Action,Fee\n2024-01-01,BTC,USD,100,1,buy,0\n2024-01-01,BTC,USD,100,1,buy,0\n2024-01-01,BTC,USD,100,2,buy,0\n"
        let first = read(text).lines.compactMap(\.request?.requestId)
        #expect(first.count == 3 && Set(first).count == 3)
        #expect(read(text).lines.compactMap(\.request?.requestId) == first)
        #expect(read("Date,Code,Currency,Price,Quantity,Action,Fee\n2024-01-01,BTC,USD,100,2,buy,0\n").lines.first?.request?.requestId == first[2])
    }

    /// Identities are stored: these, computed when a file was first imported, must stay what a line gives, or files
    /// imported before would import again. Padding (spaces, tabs, Unicode spaces), letter case, trailing zeros and a
    /// leading minus do not change a line's identity; its portfolio does, unless it is `main`.
    @Test func lineIdentityIsStable() throws {
        let header = "Date,Code,Currency,Price,Quantity,Action,Fee,FeeCurrency\n"
        let text = header + """
            2024-01-01,BTC,USD,100,1,buy,0,
            2024-01-01,BTC,USD,100,1,buy,0,
             2024-01-01 ,\tbtc\t,\u{A0}usd\u{3000}, 100.000 ,\u{2009}1.0 ,BUY, 0 ,
            2021-09-16T12:30:15.250+02:00,ETH,USD,298.580,-0.5000,sell,1.20,EUR
            2024-02-02,ETH,SEK,0,0,fee,12.50,
            16/09/2021,BTCUSD,USD,44558.42,2,transfer_in,,
            20210917,BTC,USD,0,0.00000001,transfer_out,0,\n
            """
        let main = read(text).lines.map(\.request?.requestId)
        #expect(main == [
            "import-647e112720e34954d1e53074891fcdb9", "import-647e11271de34954d1e53074891fca08", "import-647e11271ee34954d1e53074891fcb43",
            "import-c3bd10ba45aeaac4f655c179c8f6c997", "import-67255387f92345463277255a24bfa65f", "import-a579f54e6cf24a1dd07a159c95fc6aa6",
            "import-8550db8777de9c783224c458a0405b4d",
        ])
        let savings = ActivityImport.read(text, format: .csv, knownAssets: known, now: now, portfolio: "Savings").lines.map(\.request?.requestId)
        #expect(savings == [
            "import-08482bc41e915d3a6c561be33fcf3d8b", "import-08482bc41f915d3a6c561be33fcf3ec6", "import-08482bc420915d3a6c561be33fcf4001",
            "import-addc0fa880f56fd1f81dec9fd9417d69", "import-cf75e8621e78778b6aad9fa346b1fba1", "import-7f57a55bd7ac974a6f98a068457a7998",
            "import-63f2121808c78c63500f1bf7f13eb6f7",
        ])
    }

    /// Fields are trimmed of what Foundation's `CharacterSet.whitespaces` holds, every Unicode scalar checked, and of
    /// nothing else: a line break or a zero-width no-break space stays.
    @Test func fieldsAreTrimmedOfSpaces() {
        let differing = (0...0x10FFFF).compactMap(Unicode.Scalar.init).filter { ActivityImport.isSpace($0) != CharacterSet.whitespaces.contains($0) }
        #expect(differing.isEmpty, "\(differing.map { String($0.value, radix: 16) })")
        #expect(ActivityImport.trimmingSpaces("\t\u{A0} BTC\u{3000}\u{200B}") == "BTC" && ActivityImport.trimmingSpaces(" \u{2009} ").isEmpty)
        #expect(ActivityImport.trimmingSpaces(" \u{301}a b\n\u{FEFF} ").unicodeScalars.map(\.value) == [0x301, 0x61, 0x20, 0x62, 0x0A, 0xFEFF])
    }

    /// Every kind written and read back in both formats gives the same activities: a fee in another currency through
    /// FeeCurrency, a fee activity in its own currency, transfers through Tickwire's transfer_in and transfer_out.
    @Test func exportReadsBack() throws {
        let trades = [
            Trade(id: "1", asset: "BTC", amount: try dec("1.5"), price: try dec("30000.10"), currency: "USD",
                  fee: CurrencyAmount(amount: try dec("2.5"), currency: "EUR"), date: try moment("2024-01-02T10:00:00.125Z"), recordedAt: now),
            Trade(id: "2", kind: .sell, asset: "BTC", amount: try dec("0.5"), price: 40_000, currency: "USD",
                  fee: CurrencyAmount(amount: 3, currency: "USD"), date: try moment("2024-02-01"), recordedAt: now),
            Trade(id: "3", kind: .fee, asset: "ETH", amount: 0, price: 0, currency: "SEK", fee: CurrencyAmount(amount: 12, currency: "SEK"),
                  date: try moment("2024-02-02"), recordedAt: now),
            Trade(id: "4", kind: .transferIn, asset: "ETH", amount: 3, price: 1500, currency: "USD", date: try moment("2024-02-03"), recordedAt: now),
            Trade(id: "5", kind: .transferOut, asset: "ETH", amount: 1, price: 0, currency: "USD", date: try moment("2024-02-04"), recordedAt: now),
        ]
        let csv = ActivityExport.write(trades, format: .csv, now: now)
        #expect(csv.hasPrefix("Date,Code,DataSource,Currency,Price,Quantity,Action,Fee,FeeCurrency\n"
            + "2024-01-02T10:00:00.125Z,BTC,MANUAL,USD,30000.10,1.5,buy,2.5,EUR\n"))
        let json = ActivityExport.write(trades, format: .json, now: now)
        #expect(json.contains("\"fee\": 2.5, \"quantity\": 1.5, \"symbol\": \"BTC\", \"type\": \"BUY\", \"unitPrice\": 30000.10, \"feeCurrency\": \"EUR\"}"))
        #expect(json.contains("\"type\": \"TRANSFER_OUT\""))
        for (format, text) in [(ActivityFileFormat.csv, csv), (.json, json)] {
            let file = read(text, format)
            #expect(file.errors.isEmpty && file.lines.allSatisfy(\.errors.isEmpty), "\(format): \(file.lines.flatMap(\.errors))")
            let requests = file.lines.compactMap(\.request)
            #expect(requests.map(\.kind) == trades.map(\.kind))
            #expect(requests.map(\.asset) == trades.map(\.asset) && requests.map(\.date) == trades.map(\.date))
            #expect(requests.map(\.amount) == trades.map(\.amount) && requests.map(\.price) == trades.map(\.price))
            #expect(requests.map(\.currency) == trades.map(\.currency) && requests.map(\.fee) == trades.map(\.fee))
        }
        #expect(read(ActivityExport.write([], format: .json, now: now), .json) == ActivityImport.File(errors: [], lines: []))
    }

    /// A file of more than 100,000 activity lines is refused whole with an error naming the first line past the limit;
    /// 100,000 lines are read.
    @Test func lineLimit() throws {
        let header = "Date,Code,Currency,Price,Quantity,Action,Fee\n"
        let line = "2024-01-01,BTC,USD,100,1,buy,0\n"
        let limit = read(header + String(repeating: line, count: ActivityImport.maxLines))
        #expect(limit.errors.isEmpty && limit.lines.count == ActivityImport.maxLines && limit.lines.last?.line == 100_001)
        #expect(Set(limit.lines.compactMap(\.request?.requestId)).count == ActivityImport.maxLines)
        let over = read(header + String(repeating: line, count: ActivityImport.maxLines + 1))
        #expect(over.errors == [ImportLineError(line: 100_002, column: nil, reason:
            "more than 100000 activity lines: split the file into files of at most 100000 lines and import each (a part imported twice adds nothing)")])
    }
}
