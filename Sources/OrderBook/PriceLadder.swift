import Market
import Money

/// One side's levels: exact integer keys sorted ascending with the best level last, each pointing at its `BookLevel`
/// in a pool.
///
/// Why this layout (measured with `tickwire-bench --only book`, bench/RESULTS.md, on a generated stream of about 1,200
/// levels a side): a diff is a search of a contiguous `[Int128]` (the price's mantissa at the book's scale, so comparing
/// two prices is one integer compare, not a decimal compare that may rescale) and, for a new or removed level, a
/// `memmove` of the entries behind it. The best level is last (bids ascending; asks as negated keys, ascending too)
/// because exchanges change the levels near the top most: there the search ends within a few keys of the end and the
/// move is short. The 64-byte `BookLevel` (the price as the exchange wrote it, and the size) stays put in a pool and the
/// sorted arrays move only its 4-byte slot beside the 16-byte key: with the levels in the sorted array, `memmove` took
/// 43 % of `apply`, and updates/s rose by about 30 % without it (11.5 M to 15 M on that stream). A tree or a skip list
/// costs a pointer chase per level and an allocation per insert; a hash map (the C `order-book` package) is fast to
/// write but sorts every key for each read of the top.
struct PriceLadder: Sendable {
    /// Keys ascending; the last is the best level.
    private(set) var keys: [Int128] = []
    /// The pool slot of each key's level.
    private var slots: [UInt32] = []
    /// The levels, by slot; a free slot's level is stale.
    private var pool: [BookLevel] = []
    /// Slots free for reuse.
    private var free: [UInt32] = []

    /// How many levels there are.
    var count: Int { keys.count }

    /// The index of the first key not below `key`: galloping from the best end (1, 2, 4... keys back), since most diffs
    /// are near the top, then a binary search without branches over the last step's range.
    @inline(__always)
    func lowerBound(_ key: Int128) -> Int {
        keys.withUnsafeBufferPointer { keys in
            var high = keys.count
            let stop = max(high &- 8, 0)
            while high > stop, keys[high &- 1] >= key { high &-= 1 }
            if high > stop || high == 0 { return high }
            var step = 8
            while high > 0, keys[high &- 1] >= key {
                let next = high &- step
                if next <= 0 || keys[next &- 1] < key {
                    return Self.search(keys, key, from: max(next, 0), to: high &- 1)
                }
                high = next
                step &<<= 1
            }
            return high
        }
    }

    /// The first index in `low...high` whose key is not below `key`, knowing `keys[high]` is not (or `high` is the end).
    @inline(__always)
    private static func search(_ keys: UnsafeBufferPointer<Int128>, _ key: Int128, from low: Int, to high: Int) -> Int {
        var base = low, length = high &- low &+ 1
        while length > 1 {
            let half = length >> 1
            base = keys[base &+ half &- 1] < key ? base &+ half : base
            length &-= half
        }
        return base
    }

    /// Sets the level at `key` to `level`, or removes it when `level.size` is zero.
    @inline(__always)
    mutating func set(_ key: Int128, _ level: BookLevel) -> BookChange {
        let index = lowerBound(key)
        let found = index < keys.count && keys[index] == key
        if level.size.isZero {
            guard found else { return .absent }
            keys.remove(at: index)
            free.append(slots.remove(at: index))
            return .removed
        }
        if found {
            pool[Int(slots[index])] = level
            return .updated
        }
        let slot: UInt32
        if let reused = free.popLast() {
            slot = reused
            pool[Int(slot)] = level
        } else {
            slot = UInt32(pool.count)
            pool.append(level)
        }
        keys.insert(key, at: index)
        slots.insert(slot, at: index)
        return .inserted
    }

    /// The best `n` levels, best first.
    func best(_ n: Int) -> [BookLevel] {
        let taken = min(max(n, 0), slots.count)
        var levels: [BookLevel] = []
        levels.reserveCapacity(taken)
        for index in stride(from: slots.count - 1, through: slots.count - taken, by: -1) {
            levels.append(pool[Int(slots[index])])
        }
        return levels
    }

    /// The best level, if any.
    var first: BookLevel? { slots.last.map { pool[Int($0)] } }

    /// The key of the best level, if any.
    var bestKey: Int128? { keys.last }

    /// Keeps the best `depth` levels.
    mutating func truncate(to depth: Int) {
        let excess = keys.count - max(depth, 0)
        guard excess > 0 else { return }
        keys.removeFirst(excess)
        free.append(contentsOf: slots.prefix(excess))
        slots.removeFirst(excess)
    }

    /// Replaces every level with `entries` (keys unique), sorting them.
    mutating func replace(with entries: [(key: Int128, level: BookLevel)]) {
        let sorted = entries.sorted { $0.key < $1.key }
        keys = sorted.map(\.key)
        pool = sorted.map(\.level)
        slots = (0..<UInt32(pool.count)).map { $0 }
        free = []
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
