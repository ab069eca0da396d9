/// Rates of one source as a graph; derives missing pairs through known ones.
///
/// Rules:
/// - Given rates are used as given. The inverse B → A (exactly 1/rate, as a fraction) is added only where the
///   source gives no B → A itself. If the same pair is given twice, the later rate wins.
/// - A derived rate follows a shortest path in hops (breadth-first search). Ties between equally short paths go
///   to the path whose sequence of codes is lexicographically smallest (neighbours are visited in sorted code
///   order), so results never depend on the order of the rates or on dictionary iteration order.
/// - X → X is the identity (path `[X]`, rate 1) for any well-formed code, known or not.
/// - A code no rate mentions throws ``MoneyError/unknownCurrency(_:)``; known but unconnected currencies throw
///   ``MoneyError/noPath(from:to:)``. There is never a fallback rate of 1.
/// - Codes are validated like ``Currency/init(code:)`` and upper-cased, in rates and in queries alike.
public struct RateGraph: Sendable {
    /// Every currency some rate mentions, sorted.
    public private(set) var currencies: [String]
    private var indexByCode: [String: Int]
    /// Outgoing edges per currency index, sorted by target index (that is, by target code).
    private var edges: [[Edge]]

    /// One usable step: 1 of the edge's source buys `fraction` of `target`.
    private struct Edge {
        let target: Int
        let fraction: Fraction
        let isInverse: Bool
    }

    /// A graph of the given rates. Throws ``MoneyError/invalidCurrencyCode(_:)`` for a malformed code,
    /// ``MoneyError/invalidRate(from:to:rate:)`` for a rate that is not positive (or not 1 from a currency to itself),
    /// and ``MoneyError/overflow(_:)`` for a rate whose fraction needs more than 38 digits (e.g. 1E-38).
    public init(_ rates: [ExchangeRate]) throws(MoneyError) {
        var given: [Pair: Fraction] = [:]
        var codes: Set<String> = []
        for rate in rates {
            guard let from = Currency.wellFormed(rate.from) else { throw .invalidCurrencyCode(rate.from) }
            guard let to = Currency.wellFormed(rate.to) else { throw .invalidCurrencyCode(rate.to) }
            guard rate.rate.mantissa > 0, from != to || rate.rate == 1 else {
                throw .invalidRate(from: from, to: to, rate: rate.rate.description)
            }
            codes.insert(from)
            codes.insert(to)
            if from == to { continue }
            guard let fraction = Fraction(rate: rate.rate) else {
                throw .overflow("rate from \(from) to \(to) \(rate.rate) needs more than 38 digits as a fraction")
            }
            given[Pair(from: from, to: to)] = fraction
        }
        let sorted = codes.sorted()
        var indexByCode: [String: Int] = [:]
        for (index, code) in sorted.enumerated() { indexByCode[code] = index }
        var edges = Array(repeating: [Edge](), count: sorted.count)
        for (pair, fraction) in given {
            guard let from = indexByCode[pair.from], let to = indexByCode[pair.to] else { continue }
            edges[from].append(Edge(target: to, fraction: fraction, isInverse: false))
            if given[Pair(from: pair.to, to: pair.from)] == nil {
                edges[to].append(Edge(target: from, fraction: fraction.inverse, isInverse: true))
            }
        }
        self.currencies = sorted
        self.indexByCode = indexByCode
        self.edges = edges.map { $0.sorted { $0.target < $1.target } }
    }

    /// This graph with the given rate `from` → `to` set to `rate`, or nil when the graph has no given rate
    /// between them (the shape would change) or `rate` is not one ``init(_:)`` accepts. The shape stays
    /// the same, so every path does too: only the fractions along paths through this pair change, and a
    /// graph built anew from the updated rates derives exactly the same rates.
    public func replacingRate(from: String, to: String, with rate: ExactDecimal) -> RateGraph? {
        guard let fromCode = Currency.wellFormed(from), let toCode = Currency.wellFormed(to), fromCode != toCode,
              let source = indexByCode[fromCode], let target = indexByCode[toCode],
              rate.mantissa > 0, let fraction = Fraction(rate: rate),
              let forward = edges[source].firstIndex(where: { $0.target == target && !$0.isInverse })
        else { return nil }
        var graph = self
        graph.edges[source][forward] = Edge(target: target, fraction: fraction, isInverse: false)
        if let backward = edges[target].firstIndex(where: { $0.target == source && $0.isInverse }) {
            graph.edges[target][backward] = Edge(target: source, fraction: fraction.inverse, isInverse: true)
        }
        return graph
    }

    /// Adds `leaf`, a currency the graph does not have, joined to `to`, one it has, by the given rate `leaf` → `to`
    /// (and its inverse); false, the graph unchanged, otherwise or for a rate ``init(_:)`` refuses. A currency with one
    /// neighbour is on no path between two others, so every other derived rate stays as it was, and the graph is the one
    /// ``init(_:)`` builds from its rates and this one. Costs a pass over the edges, not a rebuild.
    public mutating func addLeaf(_ leaf: String, to: String, rate: ExactDecimal) -> Bool {
        guard let leafCode = Currency.wellFormed(leaf), let toCode = Currency.wellFormed(to), leafCode != toCode,
              indexByCode[leafCode] == nil, let target = indexByCode[toCode], rate.mantissa > 0, let fraction = Fraction(rate: rate)
        else { return false }
        var low = 0, high = currencies.count
        while low < high {
            let middle = (low + high) / 2
            if currencies[middle] < leafCode { low = middle + 1 } else { high = middle }
        }
        let index = low
        for code in currencies[index...] { indexByCode[code, default: 0] += 1 }
        indexByCode[leafCode] = index
        currencies.insert(leafCode, at: index)
        for node in edges.indices {
            for position in edges[node].indices where edges[node][position].target >= index {
                let edge = edges[node][position]
                edges[node][position] = Edge(target: edge.target + 1, fraction: edge.fraction, isInverse: edge.isInverse)
            }
        }
        let shifted = target >= index ? target + 1 : target
        edges.insert([Edge(target: shifted, fraction: fraction, isInverse: false)], at: index)
        let inverse = Edge(target: index, fraction: fraction.inverse, isInverse: true)
        let position = edges[shifted].firstIndex { $0.target > index } ?? edges[shifted].endIndex
        edges[shifted].insert(inverse, at: position)
        return true
    }

    /// The rate from `from` to `to` along the shortest path (ties: lexicographically smallest codes).
    public func rate(from: String, to: String) throws(MoneyError) -> DerivedRate {
        let fromCode = try Self.code(from)
        let toCode = try Self.code(to)
        if fromCode == toCode { return .identity(fromCode) }
        let source = try index(of: fromCode)
        let target = try index(of: toCode)
        let tree = search(from: source, stoppingAt: target)
        guard tree.parent[target] >= 0 else { throw .noPath(from: fromCode, to: toCode) }
        var nodes = [target]
        while let last = nodes.last, last != source { nodes.append(tree.parent[last]) }
        nodes.reverse()
        var fraction = Fraction.one
        var usesInverse = false
        for node in nodes.dropFirst() {
            let edge = edges[tree.parent[node]][tree.edgeIndex[node]]
            guard let product = fraction.multiplied(by: edge.fraction) else { throw overflow(nodes) }
            fraction = product
            usesInverse = usesInverse || edge.isInverse
        }
        let path = nodes.map { currencies[$0] }
        return DerivedRate(from: fromCode, to: toCode, path: path, fraction: fraction, usesInverse: usesInverse)
    }

    /// The rates from `base` to every other currency reachable from it, sorted by target code.
    public func rates(from base: String) throws(MoneyError) -> [DerivedRate] {
        let baseCode = try Self.code(base)
        let source = try index(of: baseCode)
        let tree = search(from: source, stoppingAt: nil)
        var fractions = Array(repeating: Fraction.one, count: currencies.count)
        var inverses = Array(repeating: false, count: currencies.count)
        var paths = Array(repeating: [String](), count: currencies.count)
        paths[source] = [baseCode]
        for node in tree.order.dropFirst() {
            let parent = tree.parent[node]
            let edge = edges[parent][tree.edgeIndex[node]]
            paths[node] = paths[parent] + [currencies[node]]
            guard let product = fractions[parent].multiplied(by: edge.fraction) else { throw overflow(paths[node]) }
            fractions[node] = product
            inverses[node] = inverses[parent] || edge.isInverse
        }
        return currencies.indices.compactMap { node in
            guard node != source, tree.parent[node] >= 0 else { return nil }
            return DerivedRate(
                from: baseCode, to: currencies[node], path: paths[node], fraction: fractions[node], usesInverse: inverses[node]
            )
        }
    }

    /// `amount` in `from` converted to `to`, rounded by `rule` to `scale` digits with the exact derived rate.
    /// For many amounts, take ``rate(from:to:)`` once and call ``DerivedRate/convert(_:scale:rule:)``.
    public func convert(
        _ amount: ExactDecimal, from: String, to: String, scale: Int, rule: RoundingRule = .halfEven
    ) throws(MoneyError) -> ExactDecimal {
        try rate(from: from, to: to).convert(amount, scale: scale, rule: rule)
    }

    /// The breadth-first tree from `source`: parent index and edge index per node (-1 when unreached),
    /// and the nodes in visiting order. Stops once `target` is reached, if given.
    private func search(from source: Int, stoppingAt target: Int?) -> (parent: [Int], edgeIndex: [Int], order: [Int]) {
        var parent = Array(repeating: -1, count: currencies.count)
        var edgeIndex = Array(repeating: -1, count: currencies.count)
        parent[source] = source
        var order = [source]
        var head = 0
        while head < order.count {
            let node = order[head]
            head += 1
            for (index, edge) in edges[node].enumerated() where parent[edge.target] < 0 {
                parent[edge.target] = node
                edgeIndex[edge.target] = index
                order.append(edge.target)
                if edge.target == target { return (parent, edgeIndex, order) }
            }
        }
        return (parent, edgeIndex, order)
    }

    private func index(of code: String) throws(MoneyError) -> Int {
        guard let index = indexByCode[code] else { throw .unknownCurrency(code) }
        return index
    }

    private static func code(_ text: String) throws(MoneyError) -> String {
        guard let code = Currency.wellFormed(text) else { throw .invalidCurrencyCode(text) }
        return code
    }

    private func overflow(_ path: [Int]) -> MoneyError {
        overflow(path.map { currencies[$0] })
    }

    private func overflow(_ path: [String]) -> MoneyError {
        .overflow("rate along \(path.joined(separator: "→")) needs more than 38 digits as a fraction")
    }

    /// An ordered currency pair.
    private struct Pair: Hashable {
        let from: String
        let to: String
    }
}
