import Foundation
import WireJSON
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

    /// `date` as ISO 8601 UTC with milliseconds, e.g. `2021-09-16T00:00:00.000Z`: the wire's own date text.
    static func format(_ date: Date) -> String { WireDate.format(date) }
}
