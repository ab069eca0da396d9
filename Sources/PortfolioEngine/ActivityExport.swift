import Foundation
import Money
import TickwireContract

/// Writes activities as a Ghostfolio file that ``ActivityImport`` reads back to the same activities.
///
/// A buy, sell or fee is Ghostfolio's `BUY`, `SELL` or `FEE` (a fee's amount in `Fee`, `Quantity` and `Price` 0); a transfer
/// is `TRANSFER_IN` or `TRANSFER_OUT`, which only Tickwire reads (Ghostfolio has no transfers and refuses the line). A fee
/// in another currency than the price's names it in `FeeCurrency` (`feeCurrency`), which Ghostfolio reads past. The data
/// source is `MANUAL`; dates are ISO 8601 UTC with milliseconds, amounts their exact digits.
public enum ActivityExport {
    /// The CSV's header line.
    public static let csvHeader = "Date,Code,DataSource,Currency,Price,Quantity,Action,Fee,FeeCurrency"

    /// `activities` as a file in `format`, written at `now` (the JSON's `meta.date`).
    public static func write(_ activities: [Trade], format: ActivityFileFormat, now: Date) -> String {
        switch format {
        case .csv: csv(activities)
        case .json: json(activities, now: now)
        }
    }

    /// One activity's columns: price currency, price, quantity, fee and the fee's own currency when it differs.
    private static func columns(_ trade: Trade) -> (currency: String, price: String, quantity: String, fee: String, feeCurrency: String) {
        switch trade.kind {
        case .fee:
            let fee = trade.fee ?? CurrencyAmount(amount: .zero, currency: trade.currency)
            return (fee.currency, "0", "0", fee.amount.description, "")
        case .buy, .sell, .transferIn, .transferOut:
            let feeCurrency = trade.fee.map { $0.currency == trade.currency ? "" : $0.currency } ?? ""
            return (trade.currency, trade.price.description, trade.amount.description, trade.fee?.amount.description ?? "0", feeCurrency)
        }
    }

    static func csv(_ activities: [Trade]) -> String {
        var text = csvHeader + "\n"
        for trade in activities {
            let c = columns(trade)
            let fields = [format(trade.date), trade.asset, "MANUAL", c.currency, c.price, c.quantity, trade.kind.rawValue, c.fee, c.feeCurrency]
            text += fields.map(CSVRecords.escape).joined(separator: ",") + "\n"
        }
        return text
    }

    static func json(_ activities: [Trade], now: Date) -> String {
        var text = "{\n  \"meta\": {\"date\": \(quoted(format(now))), \"version\": \"tickwire\"},\n  \"activities\": ["
        for (index, trade) in activities.enumerated() {
            let c = columns(trade)
            text += index == 0 ? "\n" : ",\n"
            text += "    {\"accountId\": null, \"comment\": null, \"currency\": \(quoted(c.currency)), \"dataSource\": \"MANUAL\", "
                + "\"date\": \(quoted(format(trade.date))), \"fee\": \(c.fee), \"quantity\": \(c.quantity), \"symbol\": \(quoted(trade.asset)), "
                + "\"type\": \(quoted(trade.kind.rawValue.uppercased())), \"unitPrice\": \(c.price)"
                + (c.feeCurrency.isEmpty ? "" : ", \"feeCurrency\": \(quoted(c.feeCurrency))") + "}"
        }
        text += activities.isEmpty ? "]\n}\n" : "\n  ]\n}\n"
        return text
    }

    /// `text` as a JSON string.
    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// `date` as ISO 8601 UTC with milliseconds, e.g. `2021-09-16T00:00:00.000Z`.
    static func format(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (days, rest) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        let (day, inDay) = rest < 0 ? (Int(days) - 1, Int(rest) + 86_400_000) : (Int(days), Int(rest))
        let (year, month, dayOfMonth) = civil(fromDays: day)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(dayOfMonth, 2))T\(pad(inDay / 3_600_000, 2)):\(pad(inDay / 60_000 % 60, 2)):"
            + "\(pad(inDay / 1000 % 60, 2)).\(pad(inDay % 1000, 3))Z"
    }

    /// The day of the proleptic Gregorian calendar `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
