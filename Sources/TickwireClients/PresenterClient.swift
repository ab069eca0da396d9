import Bus
import PresenterViews
import TickwireContract
import TickwireStack
import BusContract

/// The presenter: display-ready views of every screen, for a locale and a currency.
public struct PresenterClient: Sendable {
    /// `view`: one screen's view.
    public var view: @Sendable (ViewRequest) async throws -> ScreenView
    /// `health`.
    public var health: @Sendable () async throws -> Health

    /// A client from its closures.
    public init(
        view: @escaping @Sendable (ViewRequest) async throws -> ScreenView,
        health: @escaping @Sendable () async throws -> Health
    ) {
        self.view = view
        self.health = health
    }
}

extension PresenterClient {
    /// The presenter at `rep`, by default where the stack puts it (`TICKWIRE_PRESENTER_REP`).
    public static func live(_ connection: LiveConnection, rep: String = DefaultEndpoint.presenterRep.resolve(nil)) throws -> Self {
        .live(try connection.rpc(rep, service: "presenter"))
    }

    /// The presenter's methods through `rpc`.
    public static func live(_ rpc: some RPCCaller) -> Self {
        Self(view: { try await rpc.call(PresenterAPI.view, $0) }, health: { try await rpc.call(StandardAPI.health) })
    }

    /// Every closure throws, naming itself.
    public static let failing = Self(view: unimplemented("PresenterClient.view"), health: unimplemented("PresenterClient.health"))
}
