/// A growable array behind a plain pointer, for the parser's nodes and the encoder's frames: they are read and
/// written constantly, and an `Array` there paid a uniqueness and a bounds check on every access. Callers check
/// an index against ``count``; the owner frees the buffer (``deallocate()``) or takes over ``base``.
@usableFromInline
struct PointerBuffer<Element> {
    @usableFromInline
    private(set) var base: UnsafeMutablePointer<Element>
    @usableFromInline
    private(set) var count = 0
    private(set) var capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    private mutating func grow() {
        capacity *= 2
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
    }

    mutating func removeLast() -> Element {
        count -= 1
        return (base + count).move()
    }

    mutating func removeAll() {
        base.deinitialize(count: count)
        count = 0
    }

    /// Deinitializes the elements and frees the memory.
    func deallocate() {
        base.deinitialize(count: count)
        base.deallocate()
    }
}
