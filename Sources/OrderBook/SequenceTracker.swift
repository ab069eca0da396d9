/// Follows an exchange's sequence numbers: after `last`, the next message must carry `last + 1`.
///
/// Bitso's diff-orders stream works this way: diffs up to the REST snapshot's sequence are stale (already in the
/// snapshot), the one after it applies, and any jump means a message was lost and the book must be re-synchronised.
public struct SequenceTracker: Sendable, Hashable {
    /// What a sequence number means for the book.
    public enum Verdict: Sendable, Hashable {
        /// The next one: apply it.
        case ok
        /// At or before the last applied: skip it.
        case stale
        /// Past the next one: messages from `expected` to `received - 1` were lost.
        case gap(expected: Int64, received: Int64)
    }

    /// The last sequence number accepted (or the snapshot's); nil before the first.
    public private(set) var last: Int64?

    /// A tracker that has seen nothing, or whose book was built at `last`.
    public init(last: Int64? = nil) {
        self.last = last
    }

    /// Starts again from a snapshot taken at `sequence`.
    public mutating func reset(to sequence: Int64) {
        last = sequence
    }

    /// Forgets the last sequence number: the next one is taken as it comes.
    public mutating func clear() {
        last = nil
    }

    /// The verdict on `sequence`; an `ok` one becomes the last. Before any, every number is `ok`.
    /// A gap leaves `last` as it was: the caller re-synchronises and calls ``reset(to:)``.
    public mutating func check(_ sequence: Int64) -> Verdict {
        guard let last else {
            self.last = sequence
            return .ok
        }
        if sequence <= last { return .stale }
        if sequence == last &+ 1 {
            self.last = sequence
            return .ok
        }
        return .gap(expected: last &+ 1, received: sequence)
    }
}
