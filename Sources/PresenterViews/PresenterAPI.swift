import BusContract

/// The presenter's methods: display-ready views of every screen, for any locale and currency.
public enum PresenterAPI {
    /// `view {screen, locale?, currency?, filter?, scope?, symbol?, book?, sku?}`: one screen's view.
    public static let view = RPCMethod<ViewRequest, ScreenView>("view")

    /// Every method it answers, the standard ones included.
    public static let methods = StandardAPI.methods(publishes: false) + [AnyRPCMethod(view)]
    /// It publishes no stream: its live prices go to browsers as Server-Sent Events.
    public static let streams: [AnyTopicSpec] = []
}
