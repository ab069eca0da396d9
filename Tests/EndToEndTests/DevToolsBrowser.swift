import ChildProcesses
import Foundation
import Synchronization
import Testing

/// Headless Chromium's executable, which the browser tests need: `make test` installs Debian's chromium.
func chromiumExecutable() throws -> String {
    let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    return try #require(found, "headless Chromium is needed: make test installs Debian's chromium")
}

/// Headless Chromium driven over the DevTools protocol through a pipe (`--remote-debugging-pipe`: commands go to
/// its descriptor 3 and answers come from its descriptor 4, each a JSON message ended by a NUL byte; here two
/// named pipes), so a test keeps pages open and reads them as they change, with no WebSocket and no port.
final class DevToolsBrowser: @unchecked Sendable {
    // @unchecked: the descriptors are written under `state`'s lock and read by the reader thread alone.

    /// An open tab, by its DevTools session.
    struct Page: Sendable {
        let target: String
        let session: String
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private struct State {
        var next = 0
        var waiting: [Int: CheckedContinuation<Data, any Error>] = [:]
        var stopped = false
        var errors: [String] = []
    }

    private let process: ChildProcess
    private let commands: Int32
    private let answers: Int32
    private let pipes: [URL]
    private let state = Mutex(State())

    /// Starts `executable` headless with `arguments` (e.g. `--force-dark-mode`), a profile of its own in `directory`
    /// and its log there.
    static func launch(_ executable: String, _ arguments: [String] = [], in directory: URL) async throws -> DevToolsBrowser {
        let id = UUID().uuidString.prefix(6)
        let input = directory.appendingPathComponent("devtools-in-\(id)"), output = directory.appendingPathComponent("devtools-out-\(id)")
        guard mkfifo(input.path, 0o600) == 0, mkfifo(output.path, 0o600) == 0 else { throw Failure(description: "mkfifo failed: \(errno)") }
        // Read-write, so neither open waits for the other end (Linux allows it on a FIFO).
        let commands = Glibc.open(input.path, O_RDWR | O_CLOEXEC), answers = Glibc.open(output.path, O_RDWR | O_CLOEXEC)
        guard commands >= 0, answers >= 0 else { throw Failure(description: "the DevTools pipes could not be opened: \(errno)") }
        let process = try await ChildProcess.start(
            "/bin/sh", ["-c", "exec \"$0\" \"$@\" 3<\"$DEVTOOLS_IN\" 4>\"$DEVTOOLS_OUT\"", executable,
                        "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--hide-scrollbars",
                        "--user-data-dir=\(directory.appendingPathComponent("profile-\(id)").path)"] + arguments + ["about:blank"],
            environment: ["DEVTOOLS_IN": input.path, "DEVTOOLS_OUT": output.path],
            output: directory.appendingPathComponent("chromium-\(id).log"))
        let browser = DevToolsBrowser(process: process, commands: commands, answers: answers, pipes: [input, output])
        Thread.detachNewThread { browser.readAnswers() }
        return browser
    }

    private init(process: ChildProcess, commands: Int32, answers: Int32, pipes: [URL]) {
        self.process = process
        self.commands = commands
        self.answers = answers
        self.pipes = pipes
    }

    /// Opens `url` in a new tab.
    func open(_ url: URL) async throws -> Page {
        let target = try await call("Target.createTarget", ["url": url.absoluteString])
        guard let id = (target["targetId"] as? String) else { throw Failure(description: "no target for \(url)") }
        let attached = try await call("Target.attachToTarget", ["targetId": id, "flatten": true])
        guard let session = attached["sessionId"] as? String else { throw Failure(description: "no session for \(url)") }
        _ = try await call("Runtime.enable", [:], session: session)
        return Page(target: id, session: session)
    }

    /// The uncaught exceptions and console errors of every tab so far.
    var errors: [String] { state.withLock { $0.errors } }

    /// Closes a tab.
    func close(_ page: Page) async throws {
        _ = try await call("Target.closeTarget", ["targetId": page.target])
    }

    /// The value of the JavaScript `expression` in `page`, as a string ("" for undefined or null).
    func string(_ page: Page, _ expression: String) async throws -> String {
        let result = try await call("Runtime.evaluate", ["expression": "String((\(expression)) ?? '')", "returnByValue": true], session: page.session)
        if let exception = result["exceptionDetails"] { throw Failure(description: "\(expression) threw: \(exception)") }
        return ((result["result"] as? [String: Any])?["value"] as? String) ?? ""
    }

    /// A PNG of what `page` shows, brought to the front first: a tab in the background commits no new frame, and its
    /// `Page.captureScreenshot` can wait for one until the call's 20 s run out (it did once in a clean-clone run).
    func screenshot(_ page: Page) async throws -> Data {
        _ = try await call("Page.bringToFront", [:], session: page.session)
        let result = try await call("Page.captureScreenshot", ["format": "png"], session: page.session)
        guard let base64 = result["data"] as? String, let data = Data(base64Encoded: base64) else { throw Failure(description: "no screenshot") }
        return data
    }

    /// Closes the browser and its pipes.
    func quit() async {
        let pending = Task { _ = try? await self.call("Browser.close", [:]) }
        if await process.waitForExit(within: .seconds(10)) == nil { await process.stop() }
        pending.cancel()
        let waiting = state.withLock { state in
            state.stopped = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume(throwing: Failure(description: "the browser was closed")) }
        try? await Task.sleep(for: .milliseconds(300))
        Glibc.close(commands)
        Glibc.close(answers)
        for pipe in pipes { try? FileManager.default.removeItem(at: pipe) }
    }

    /// Sends `method` with `params` (to `session`, or the browser) and returns its `result`; throws its `error`,
    /// or after 20 s without an answer.
    private func call(_ method: String, _ params: [String: any Sendable], session: String? = nil) async throws -> [String: Any] {
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        let timer = Task {
            try await Task.sleep(for: .seconds(20))
            self.state.withLock { $0.waiting.removeValue(forKey: id) }?.resume(throwing: Failure(description: "\(method): no answer within 20 s"))
        }
        defer { timer.cancel() }
        let answer: Data = try await withCheckedThrowingContinuation { continuation in
            let failure: Failure? = state.withLock { state in
                guard !state.stopped else { return Failure(description: "the browser was closed") }
                var message: [String: Any] = ["id": id, "method": method, "params": params]
                if let session { message["sessionId"] = session }
                guard var bytes = try? JSONSerialization.data(withJSONObject: message) else { return Failure(description: "\(method): not JSON") }
                bytes.append(0)
                let written = bytes.withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
                guard written == bytes.count else { return Failure(description: "\(method) could not be sent") }
                state.waiting[id] = continuation
                return nil
            }
            if let failure { continuation.resume(throwing: failure) }
        }
        guard let object = try JSONSerialization.jsonObject(with: answer) as? [String: Any] else { throw Failure(description: "\(method): not an object") }
        if let error = object["error"] { throw Failure(description: "\(method) failed: \(error)") }
        return object["result"] as? [String: Any] ?? [:]
    }

    /// An uncaught exception or a console error that event `object` reports, if it is one.
    private static func error(in object: [String: Any]) -> String? {
        let params = object["params"] as? [String: Any] ?? [:]
        switch object["method"] as? String {
        case "Runtime.exceptionThrown": return "exception: \(params["exceptionDetails"] ?? params)"
        case "Runtime.consoleAPICalled" where params["type"] as? String == "error": return "console error: \(params["args"] ?? params)"
        default: return nil
        }
    }

    /// The reader thread: splits what comes at the NUL bytes and hands each answer to the call waiting for it,
    /// and keeps the errors events report.
    private func readAnswers() {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while !state.withLock({ $0.stopped }) {
            var descriptor = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 200) > 0 else { continue }
            let count = read(answers, &chunk, chunk.count)
            guard count > 0 else { continue }
            buffer.append(contentsOf: chunk[0..<count])
            while let end = buffer.firstIndex(of: 0) {
                let message = Data(buffer[buffer.startIndex..<end])
                buffer.removeSubrange(buffer.startIndex...end)
                guard let object = try? JSONSerialization.jsonObject(with: message) as? [String: Any] else { continue }
                if let id = object["id"] as? Int {
                    state.withLock { $0.waiting.removeValue(forKey: id) }?.resume(returning: message)
                } else if let error = Self.error(in: object) {
                    state.withLock { $0.errors.append(error) }
                }
            }
        }
    }
}
