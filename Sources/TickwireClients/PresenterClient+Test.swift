import Bus
import BusContract
import PresenterViews
import TickwireContract

extension PresenterClient {
    /// The presenter's recorded views (`scripts/record-client-fixtures.py`), one per screen whatever else
    /// is asked; an unknown screen is the service's error.
    public static let test = Self(
        view: { request in
            guard ScreenView.screens.contains(request.screen) else {
                throw RPCError.notFound("No screen \"\(request.screen)\"; screens: \(ScreenView.screens.joined(separator: ", ")).")
            }
            return try Fixtures.load("presenter", "view-\(request.screen)")
        },
        health: Fixtures.answer("presenter", "health"))
}
