import Feeds
import Foundation
import Testing

@Suite struct FeedFixtureTests {
    /// Every recorded response is in the bundle and is JSON.
    @Test(arguments: FeedFixture.allCases)
    func fixtureIsBundledJSON(fixture: FeedFixture) throws {
        let data = try fixture.data()
        #expect(!data.isEmpty)
        #expect(throws: Never.self) { try JSONSerialization.jsonObject(with: data) }
    }
}
