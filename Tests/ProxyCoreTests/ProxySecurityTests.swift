import Bus
import Foundation
import ProxyCore
import ServiceSupport
import Testing
import ZeroMQ

/// A raw SUB socket on `endpoint` with `security`, subscribed to `tick.`.
private func tickSubscriber(_ context: ZMQContext, name: String, endpoint: String, security: SocketSecurity) throws -> OwnedSocket {
    try OwnedSocket(context: context, type: .sub, name: name) { socket in
        try security.apply(to: socket)
        try socket.subscribe("tick.")
        try socket.connect(endpoint)
    }
}

/// The first message `socket` receives within `timeout`, or nil; closes the socket either way.
private func firstMessage(of socket: OwnedSocket, within timeout: Duration) async -> [Data]? {
    // Closing the socket finishes its messages, so the read below ends when the watchdog fires.
    let watchdog = Task {
        try? await Task.sleep(for: timeout)
        await socket.close()
    }
    var incoming = socket.incoming.makeAsyncIterator()
    let frames = await incoming.next()
    watchdog.cancel()
    await socket.close()
    return frames
}

@Suite("The proxy's sockets follow the runtime's security rules", .serialized)
struct ProxySecurityTests {
    /// With keys, the proxy is a CURVE client of its upstream (with its own certificate) and a CURVE server to
    /// its subscribers: a known client key gets the stream through it, an unknown one nothing.
    @Test func keysSecureBothSides() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-proxy-keys-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: url) }
        try KeyDirectory.generate(at: url, services: ["converter", "tickwire-proxy"], clients: ["alice"])
        let keys = try KeyDirectory(url)

        // The upstream: a publisher secured as a CURVE server, in a context of its own with its own ZAP handler.
        let upstreamContext = try ZMQContext()
        let upstreamZAP = try PeerAuthenticator(keys: keys, service: "converter", logger: testLogger).start(in: upstreamContext)
        let pubEndpoint = ipcEndpoint("secure-pub")
        let publisher = try Publisher(
            context: upstreamContext, service: "converter", endpoints: [pubEndpoint], heartbeatInterval: .milliseconds(200),
            security: SocketSecurity(curve: .server(try keys.certificate(of: "converter"))), logger: testLogger)
        let publisherTask = Task { try? await publisher.run() }
        let stream = publishing(publisher, topics: 2)

        let runtime = try Runtime(service: "tickwire-proxy", logger: testLogger, security: SecuritySettings(keys: keys))
        let proxyEndpoint = ipcEndpoint("secure-xpub")
        let services = try Proxy.services(
            ProxyConfiguration(upstreams: [pubEndpoint], binds: [proxyEndpoint], rep: ipcEndpoint("secure-rep")), runtime: runtime)
        let proxyTasks = services.map { service in Task { try? await service.run() } }

        let clientContext = try ZMQContext()
        let known = try tickSubscriber(
            clientContext, name: "alice", endpoint: proxyEndpoint, security: try keys.clientSecurity("alice", connectingTo: "tickwire-proxy"))
        let stranger = try tickSubscriber(
            clientContext, name: "stranger", endpoint: proxyEndpoint,
            security: SocketSecurity(curve: .client(try CurveCertificate.generate(), serverKey: try keys.serverKey(of: "tickwire-proxy"))))
        let received = await firstMessage(of: known, within: .seconds(20))
        #expect(received.map { String(decoding: $0[0], as: UTF8.self).hasPrefix("tick.feed.") } == true,
                "a known client key gets the upstream's stream through the proxy")
        let strangerReceived = await firstMessage(of: stranger, within: .seconds(3))
        #expect(strangerReceived == nil, "an unknown client key gets nothing")

        stream.cancel()
        await stream.value
        for task in proxyTasks {
            task.cancel()
            await task.value
        }
        publisherTask.cancel()
        await runtime.zapHandler?.stop()
        await upstreamZAP.stop()
    }

    /// Without keys, a non-loopback bind is refused unless the proxy is told `insecure`.
    @Test func nonLoopbackBindNeedsKeysOrInsecure() async throws {
        let exposed = ProxyConfiguration(upstreams: [ipcEndpoint("pub")], binds: ["tcp://0.0.0.0:*"], rep: ipcEndpoint("rep"))
        let plain = try Runtime(service: "tickwire-proxy", logger: testLogger)
        #expect(throws: ExposureError(endpoint: "tcp://0.0.0.0:*")) { try Proxy.services(exposed, runtime: plain) }
        let exposedUpstreamBind = ProxyConfiguration(
            upstreams: [], upstreamBinds: ["tcp://0.0.0.0:*"], binds: [ipcEndpoint("xpub")], rep: ipcEndpoint("rep"))
        #expect(throws: ExposureError(endpoint: "tcp://0.0.0.0:*")) { try Proxy.services(exposedUpstreamBind, runtime: plain) }

        let insecure = try Runtime(service: "tickwire-proxy", logger: testLogger, security: SecuritySettings(insecure: true))
        let services = try Proxy.services(exposed, runtime: insecure)
        #expect(services.count == 2)
        for task in services.map({ service in Task { try? await service.run() } }) {
            task.cancel()
            await task.value
        }
    }

    /// `--upstream-service` (or its environment variable) names the upstream whose key the proxy expects.
    @Test func upstreamServiceOption() throws {
        let flags = try ProxyOptions.parse(["--upstream", "ipc:///tmp/x", "--upstream-service", "rates-fetcher"]).configuration(environment: [:])
        #expect(flags.upstreamService == "rates-fetcher")
        let environment = try ProxyOptions.parse(["--upstream", "ipc:///tmp/x"]).configuration(
            environment: ["TICKWIRE_PROXY_UPSTREAM_SERVICE": "portfolio"])
        #expect(environment.upstreamService == "portfolio")
        #expect(try ProxyOptions.parse(["--upstream", "ipc:///tmp/x"]).configuration(environment: [:]).upstreamService == "converter")
    }
}
