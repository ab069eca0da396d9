/// Something a test starts and must stop again: a stack of service processes, a server.
public protocol Stoppable: AnyObject, Sendable {
    /// Stops it (its processes, its clients).
    func stop() async
}

extension Stoppable {
    /// Runs `body` with it, then stops it, also when `body` throws: stopping at the end of a test alone leaves it
    /// running for the rest of the test run when anything before the end throws.
    public func use<Result>(_ body: (Self) async throws -> Result) async throws -> Result {
        let result: Result
        do {
            result = try await body(self)
        } catch {
            await stop()
            throw error
        }
        await stop()
        return result
    }
}
