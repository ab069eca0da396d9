/// A side of an order book.
public enum BookSide: String, Sendable, Hashable, Codable, CaseIterable {
    /// Buy orders, best (highest price) first.
    case bid
    /// Sell orders, best (lowest price) first.
    case ask
}

/// A change an ``L2Book`` refused: `message` names the input and why; `reason` is a short label to count it by.
public struct BookError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, as a metric label.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// A price of zero or below.
        case price
        /// A size below zero.
        case size
        /// A price with more digits than the book's exact integer keys can hold beside the book's other prices.
        case precision
    }

    /// What was wrong.
    public var reason: Reason
    /// A human message naming the offending value.
    public var message: String

    /// An error for `reason`, described by `message`.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// What ``L2Book/apply(side:price:size:)`` did to the book.
public enum BookChange: Sendable, Hashable {
    /// A new price level.
    case inserted
    /// A new size at an existing level.
    case updated
    /// A level removed by a size of zero.
    case removed
    /// A size of zero for a price the book has no level at: nothing changed.
    case absent
}
