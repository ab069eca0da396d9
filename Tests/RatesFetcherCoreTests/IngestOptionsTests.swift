import RatesFetcherCore
import Testing

@Suite("Ingest options")
struct IngestOptionsTests {
    private func configuration(_ arguments: [String] = [], environment: [String: String] = [:]) throws -> FetcherConfiguration {
        try FetcherOptions.parse(arguments).configuration(environment: environment)
    }

    /// By default the ingest endpoint is tcp://127.0.0.1:7103 and each plugin may send 100,000 messages a second.
    @Test func defaults() throws {
        let configuration = try configuration()
        #expect(configuration.ingest == "tcp://127.0.0.1:7103")
        #expect(configuration.ingestRate == 100_000)
    }

    /// The flags win over the environment, which wins over the defaults.
    @Test func flagsThenEnvironment() throws {
        let environment = ["TICKWIRE_RATES_FETCHER_INGEST": "ipc:///tmp/env-ingest", "TICKWIRE_RATES_FETCHER_INGEST_RATE": "50"]
        let fromEnvironment = try configuration(environment: environment)
        #expect(fromEnvironment.ingest == "ipc:///tmp/env-ingest" && fromEnvironment.ingestRate == 50)
        let fromFlags = try configuration(["--ingest", "ipc:///tmp/flag-ingest", "--ingest-rate", "7"], environment: environment)
        #expect(fromFlags.ingest == "ipc:///tmp/flag-ingest" && fromFlags.ingestRate == 7)
    }

    /// A rate below 1 or not a whole number stops the start with the flag's name.
    @Test(arguments: [["--ingest-rate", "0"], ["--ingest-rate", "-3"]])
    func badRateFlag(_ arguments: [String]) {
        #expect(throws: (any Error).self) { try configuration(arguments) }
    }

    @Test func badRateInTheEnvironment() {
        #expect { try configuration(environment: ["TICKWIRE_RATES_FETCHER_INGEST_RATE": "lots"]) } throws: { error in
            "\(error)".contains("--ingest-rate (env TICKWIRE_RATES_FETCHER_INGEST_RATE) must be a whole number")
        }
    }
}
