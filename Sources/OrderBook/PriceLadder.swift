import Market
import Money

/// One side's levels as two parallel arrays sorted by an exact integer key, best level last.
///
/// Why this layout (measured with `tickwire-bench --only book`, bench/RESULTS.md): a diff is a binary search over a
/// contiguous `[Int128]` (the price's mantissa at the book's scale, so comparing two prices is one integer compare,
/// not a decimal compare that may rescale) and, for a new or removed level, a `memmove` of the levels behind it.
/// The best level is kept last (bids ascending; asks as negated keys, ascending too) because exchanges change the
/// levels near the top most: there the move is a few elements. Books hold hundreds to a few thousand levels, where
/// this beats a tree or a skip list (a pointer chase per level, an allocation per insert) and a hash map plus a sort
/// for every top N. The exact `BookLevel` (price as the exchange wrote it, size) is kept beside the key for output.
struct PriceLadder: Sendable {
    /// Keys ascending; the last is the best level.
    private(set) var keys: [Int128] = []
    /// The level of each key.
    private(set) var levels: [BookLevel] = []

    /// How many levels there are.
    var count: Int { keys.count }

    /// The index of the first key not below `key`, by binary search.
    @inline(__always)
    func lowerBound(_ key: Int128) -> Int {
        keys.withUnsafeBufferPointer { keys in
            var low = 0, high = keys.count
            while low < high {
                let middle = (low &+ high) >> 1
                if keys[middle] < key { low = middle &+ 1 } else { high = middle }
            }
            return low
        }
    }

    /// Sets the level at `key` to `level`, or removes it when `level.size` is zero.
    @inline(__always)
    mutating func set(_ key: Int128, _ level: BookLevel) -> BookChange {
        let index = lowerBound(key)
        let found = index < keys.count && keys[index] == key
        if level.size.isZero {
            guard found else { return .absent }
            keys.remove(at: index)
            levels.remove(at: index)
            return .removed
        }
        if found {
            levels[index] = level
            return .updated
        }
        keys.insert(key, at: index)
        levels.insert(level, at: index)
        return .inserted
    }

    /// The best `n` levels, best first.
    func best(_ n: Int) -> [BookLevel] {
        let taken = min(max(n, 0), levels.count)
        return Array(levels[(levels.count - taken)...].reversed())
    }

    /// The best level, if any.
    var first: BookLevel? { levels.last }

    /// The key of the best level, if any.
    var bestKey: Int128? { keys.last }

    /// Keeps the best `depth` levels.
    mutating func truncate(to depth: Int) {
        let excess = keys.count - max(depth, 0)
        guard excess > 0 else { return }
        keys.removeFirst(excess)
        levels.removeFirst(excess)
    }

    /// Replaces every level with `entries` (keys unique), sorting them.
    mutating func replace(with entries: [(key: Int128, level: BookLevel)]) {
        let sorted = entries.sorted { $0.key < $1.key }
        keys = sorted.map(\.key)
        levels = sorted.map(\.level)
    }

    /// The keys multiplied by `factor`, or nil when one would leave the exact range.
    func keys(scaledBy factor: Int128) -> [Int128]? {
        var scaled: [Int128] = []
        scaled.reserveCapacity(keys.count)
        for key in keys {
            let product = key.multipliedReportingOverflow(by: factor)
            guard !product.overflow, product.partialValue.magnitude <= ExactDecimal.maxMantissa.magnitude else { return nil }
            scaled.append(product.partialValue)
        }
        return scaled
    }

    /// Takes `keys` from ``keys(scaledBy:)`` (same order, same count).
    mutating func setKeys(_ keys: [Int128]) {
        self.keys = keys
    }
}
