import ArgumentParser
import Testing
@testable import ServiceSupport

@Suite("CommonOptions: a wrong environment value names its flag, its variable and the expected form")
struct CommonOptionsTests {
    /// `TICKWIRE_INSECURE`: 1, true or yes allow, 0, false, no or empty do not, in any case; anything else is refused.
    @Test func readsTheInsecureVariable() throws {
        let options = try CommonOptions.parse([])
        for yes in ["1", "true", "YES", "True"] {
            #expect(try options.insecureAllowed(environment: ["TICKWIRE_INSECURE": yes]), "\(yes)")
        }
        for no in ["", "0", "false", "No"] {
            #expect(try !options.insecureAllowed(environment: ["TICKWIRE_INSECURE": no]), "\(no)")
        }
        #expect(try !options.insecureAllowed(environment: [:]))
        #expect(try CommonOptions.parse(["--insecure"]).insecureAllowed(environment: ["TICKWIRE_INSECURE": "0"]), "the flag wins")
        for bad in ["2", "on", "maybe"] {
            let error = #expect(throws: ValidationError.self) { try options.insecureAllowed(environment: ["TICKWIRE_INSECURE": bad]) }
            #expect(error?.message == "--insecure (env TICKWIRE_INSECURE) must be 1, true, yes, 0, false, no or empty; got \(bad.debugDescription)")
            #expect(throws: ValidationError.self, "security reads it too") { try options.security(environment: ["TICKWIRE_INSECURE": bad]) }
        }
    }

    /// `TICKWIRE_MAX_MESSAGE_BYTES` is a positive whole number; anything else names the flag and the variable.
    @Test func readsTheMessageLimitVariable() throws {
        let options = try CommonOptions.parse([])
        #expect(try options.security(environment: ["TICKWIRE_MAX_MESSAGE_BYTES": "1024"]).maxMessageBytes == 1024)
        for bad in ["0", "-5", "4MB", "1.5"] {
            let error = #expect(throws: ValidationError.self) { try options.security(environment: ["TICKWIRE_MAX_MESSAGE_BYTES": bad]) }
            #expect(error?.message == "--max-message-bytes (env TICKWIRE_MAX_MESSAGE_BYTES) must be a positive number of bytes; got \(bad.debugDescription)")
        }
    }

    /// A malformed `TICKWIRE_STREAM_KEYS` pair names the flag, the variable and the SERVICE=CERT form.
    @Test func readsTheStreamKeysVariable() throws {
        let options = try CommonOptions.parse([])
        #expect(try options.security(environment: ["TICKWIRE_STREAM_KEYS": "converter=tickwire-proxy"]).streamServers == ["converter": "tickwire-proxy"])
        let error = #expect(throws: ValidationError.self) { try options.security(environment: ["TICKWIRE_STREAM_KEYS": "converter"]) }
        #expect(error?.message.hasPrefix("--stream-key (env TICKWIRE_STREAM_KEYS): \"converter\" is not SERVICE=CERT (e.g. converter=tickwire-proxy") == true,
                "\(String(describing: error?.message))")
    }
}
