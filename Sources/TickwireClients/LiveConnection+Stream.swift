import Bus
import BusContract
import TickwireStack

extension LiveConnection {
    /// A typed stream of the publisher `name` (a service or plugin) at `pub`, whose snapshots come from its REP at `rep`.
    public func stream<Value>(
        _ name: String, pub: String, rep: String, prefixes: [String],
        decode: @escaping @Sendable (BusMessage) throws -> Value?
    ) throws -> StreamEvents<Value> {
        // A snapshot can be large (every transaction, the whole masterdata): allow it more time.
        let snapshots = try rpc(rep, service: name, timeout: max(timeout, .seconds(5)))
        let streamSecurity = try security(connectingTo: keys?.streamServer(of: name) ?? name)
        return .live(context: context, name: name, pub: pub, prefixes: prefixes, security: streamSecurity,
                     backlog: conflatesStreams ? 64 : Int.max, receiveBuffer: conflatesStreams ? 20_000 : 1_000_000, logger: logger,
                     snapshot: { prefix in try await snapshots.call(StandardAPI.snapshot, SnapshotRequest(prefix: prefix)) },
                     decode: decode)
    }
}
