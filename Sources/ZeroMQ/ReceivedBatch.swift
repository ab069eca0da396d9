import Foundation

/// Messages received in one go, packed into one byte buffer with the ends of their frames.
///
/// A socket's receiving thread copies each frame in here instead of making a `Data` per frame, and a
/// message's `Data` values are made when the reader takes it. So a frame's memory is mostly allocated and
/// freed on one thread (glibc frees memory of another thread's arena slowly, under that arena's lock), and a backlog of waiting
/// messages lies in a few contiguous buffers that the reader walks in order, rather than in scattered
/// small blocks (bench/PROFILE.md).
struct ReceivedBatch: Sendable {
    /// Every frame's bytes, back to back.
    private var bytes: [UInt8] = []
    /// The end offset in `bytes` of each frame.
    private var frameEnds: [Int] = []
    /// The end index in `frameEnds` of each message.
    private var messageEnds: [Int] = []

    /// How many messages the batch holds.
    var count: Int { messageEnds.count }

    var isEmpty: Bool { messageEnds.isEmpty }

    /// An empty batch with room for a batch as large as `previous`, so that filling it seldom grows its buffers
    /// (growing copies them; the receiving thread's batches are alike from one to the next).
    init(sizedLike previous: Sizes) {
        bytes.reserveCapacity(previous.bytes)
        frameEnds.reserveCapacity(previous.frames)
        messageEnds.reserveCapacity(previous.messages)
    }

    /// How much a batch held, for sizing the next one.
    struct Sizes {
        // Small floors: a trickle of one-message batches reserves about what one message needs.
        var bytes = 512
        var frames = 4
        var messages = 2
    }

    /// What this batch holds, between the floor of ``Sizes``' defaults and a ceiling, so that one huge message
    /// does not make every later batch reserve as much.
    var sizes: Sizes {
        let floor = Sizes()
        return Sizes(
            bytes: min(max(bytes.count, floor.bytes), 1 << 20),
            frames: min(max(frameEnds.count, floor.frames), 1 << 14),
            messages: min(max(messageEnds.count, floor.messages), 1 << 14))
    }

    /// Receives one whole multipart message from `socket` into the batch without blocking; false when none
    /// was waiting. With `property`, its value comes first (``Socket/receiveFrames(dontWait:property:_:)``).
    mutating func receive(from socket: Socket, property: String? = nil) throws(ZMQError) -> Bool {
        let firstFrame = frameEnds.count
        do throws(ZMQError) {
            guard try socket.receiveFrames(dontWait: true, property: property, { start, count in
                bytes.append(contentsOf: UnsafeRawBufferPointer(start: start, count: count))
                frameEnds.append(bytes.count)
            }) else { return false }
        } catch {
            // A message's frames arrive together, so a failure half-way is the socket closing: drop its part.
            frameEnds.removeSubrange(firstFrame...)
            bytes.removeSubrange(start(of: firstFrame, in: frameEnds)...)
            throw error
        }
        messageEnds.append(frameEnds.count)
        return true
    }

    /// The frames of message `index`, each a `Data` of its own.
    func message(_ index: Int) -> [Data] {
        let firstFrame = start(of: index, in: messageEnds)
        var frames: [Data] = []
        frames.reserveCapacity(messageEnds[index] - firstFrame)
        bytes.withUnsafeBytes { buffer in
            var frameStart = start(of: firstFrame, in: frameEnds)
            for frame in firstFrame..<messageEnds[index] {
                let end = frameEnds[frame]
                frames.append(end > frameStart ? Data(bytes: buffer.baseAddress! + frameStart, count: end - frameStart) : Data())
                frameStart = end
            }
        }
        return frames
    }

    /// Every message's frames, in order.
    func messages() -> [[Data]] {
        (0..<count).map(message)
    }

    /// Keeps only the first `count` messages, in buffers of their size: the dropped messages' memory is freed,
    /// not kept for the few that stay.
    mutating func removeMessages(after count: Int) {
        guard count < messageEnds.count else { return }
        let frameCount = start(of: count, in: messageEnds)
        let byteCount = start(of: frameCount, in: frameEnds)
        messageEnds = exactCopy(messageEnds[..<count])
        frameEnds = exactCopy(frameEnds[..<frameCount])
        bytes = exactCopy(bytes[..<byteCount])
    }

    /// Gives back what the buffers reserved beyond twice their contents (a trickle of messages after a
    /// burst), so the messages a slow reader leaves waiting hold what was sent, not what was reserved.
    mutating func releaseSpareCapacity() {
        if bytes.capacity > 2 * bytes.count + 256 { bytes = exactCopy(bytes[...]) }
        if frameEnds.capacity > 2 * frameEnds.count + 16 { frameEnds = exactCopy(frameEnds[...]) }
        if messageEnds.capacity > 2 * messageEnds.count + 16 { messageEnds = exactCopy(messageEnds[...]) }
    }
}

/// Where item `index` starts, given the end offset of every item: where the one before it ends.
private func start(of index: Int, in ends: [Int]) -> Int {
    index == 0 ? 0 : ends[index - 1]
}

/// A new array of `elements` with no more room than they need.
private func exactCopy<Element>(_ elements: ArraySlice<Element>) -> [Element] {
    var copy: [Element] = []
    copy.reserveCapacity(elements.count)
    copy.append(contentsOf: elements)
    return copy
}
