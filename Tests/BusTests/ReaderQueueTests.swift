import ReaderQueue
import Testing

/// A first-in, first-out buffer of numbers.
private struct Numbers: ReaderQueueBuffer {
    var items: [Int] = []
    mutating func take() -> Int? { items.isEmpty ? nil : items.removeFirst() }
}

@Suite("ReaderQueue: one async reader, writers that shape the buffer")
struct ReaderQueueTests {
    /// A waiting reader gets the first of a write at once; the rest wait in order.
    @Test func waitingReaderGetsTheFirst() async throws {
        let queue = ReaderQueue(Numbers())
        let reader = Task { await queue.next() }
        try await Task.sleep(for: .milliseconds(50))
        #expect(queue.write { $0.items += [1, 2, 3]; return $0.items.count } == 3)
        #expect(await reader.value == 1)
        #expect(queue.read { $0.items } == [2, 3])
    }

    /// After finish the rest is read, then nil; later writes are not run.
    @Test func finishDrainsThenEnds() async {
        let queue = ReaderQueue(Numbers())
        queue.write { $0.items.append(1) }
        queue.finish()
        #expect(queue.write { $0.items.append(2) } == nil)
        #expect(await queue.next() == 1)
        #expect(await queue.next() == nil)
    }

    /// A reader cancelled while it waits gets nil, and the queue still works for the next reader.
    @Test func cancelledReaderGetsNil() async throws {
        let queue = ReaderQueue(Numbers())
        let reader = Task { await queue.next() }
        try await Task.sleep(for: .milliseconds(50))
        reader.cancel()
        #expect(await reader.value == nil)
        queue.write { $0.items.append(7) }
        #expect(await queue.next() == 7)
    }
}
