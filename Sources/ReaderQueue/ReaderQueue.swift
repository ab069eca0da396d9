import Synchronization

/// What a ``ReaderQueue`` holds, and the order its reader takes it in.
public protocol ReaderQueueBuffer: Sendable {
    associatedtype Element: Sendable
    /// Removes and returns the element the reader gets next, if any.
    mutating func take() -> Element?
}

/// A queue between any number of writers and one async reader: writers change the buffer under a
/// lock, and the reader takes from it or waits, woken by the first write that gives it something.
///
/// Written by hand rather than with `AsyncStream` because its writers decide how elements are
/// kept (in batches with a bound, or conflated by key), and because a batch costs one lock and at
/// most one wake-up of the reader, where `AsyncStream` resumes the reader once per element.
///
/// Its methods are inlinable so that they specialize for the buffer where it is used: unspecialized,
/// every ``next()`` looked up the generic metadata of its state at run time (bench/PROFILE.md).
public final class ReaderQueue<Buffer: ReaderQueueBuffer>: Sendable {
    @usableFromInline
    struct State {
        @usableFromInline
        var buffer: Buffer
        @usableFromInline
        var waiter: CheckedContinuation<Buffer.Element?, Never>?
        @usableFromInline
        var finished = false

        @usableFromInline
        init(buffer: Buffer) { self.buffer = buffer }
    }

    @usableFromInline
    let state: Mutex<State>

    /// A queue that starts with `buffer`.
    @inlinable
    public init(_ buffer: Buffer) {
        state = Mutex(State(buffer: buffer))
    }

    /// Changes the buffer with `body` and wakes a waiting reader if there is now something for it.
    /// Returns `body`'s result, or nil without calling it once the queue is finished.
    @inlinable @discardableResult
    public func write<Result>(_ body: (inout Buffer) -> Result) -> Result? {
        let (waiter, element, result) = state.withLock { state -> (CheckedContinuation<Buffer.Element?, Never>?, Buffer.Element?, Result?) in
            if state.finished { return (nil, nil, nil) }
            let result = body(&state.buffer)
            guard let waiter = state.waiter, let element = state.buffer.take() else { return (nil, nil, result) }
            state.waiter = nil
            return (waiter, element, result)
        }
        if let waiter { waiter.resume(returning: element) }
        return result
    }

    /// Runs `body` on the buffer under the lock, for a reader that takes more than one element at a time.
    @inlinable
    public func read<Result>(_ body: (inout Buffer) -> Result) -> Result {
        state.withLock { body(&$0.buffer) }
    }

    /// Ends the sequence once what the buffer holds is read; later writes are ignored.
    @inlinable
    public func finish() {
        let waiter = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next element; waits for one. Nil when finished and drained, or when the task is cancelled.
    @inlinable
    public func next() async -> Buffer.Element? {
        if let element = state.withLock({ $0.buffer.take() }) { return element }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Buffer.Element?, Never>) in
                let immediate = state.withLock { state -> Buffer.Element?? in
                    if let element = state.buffer.take() { return .some(element) }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    precondition(state.waiter == nil, "a ReaderQueue read by two tasks at once")
                    state.waiter = continuation
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
