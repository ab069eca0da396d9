import PortfolioPostgres
import Testing

@Suite("PostgreSQL database URL")
struct DatabaseURLTests {
    /// A full URL gives its parts, percent-decoded; its description hides the password.
    @Test func aFullURL() throws {
        let url = try PostgresDatabaseURL("postgres://tick%40wire:s3cr%2Ft@db.example:6543/portfolio")
        #expect(url.host == "db.example" && url.port == 6543 && url.database == "portfolio")
        #expect(url.username == "tick@wire" && url.password == "s3cr/t")
        #expect(url.description == "postgres://tick@wire:***@db.example:6543/portfolio")
        #expect(!url.description.contains("s3cr"))
    }

    /// postgresql:// too; the port defaults to 5432 and the database to the user's name, as libpq's do.
    @Test func defaults() throws {
        let url = try PostgresDatabaseURL("postgresql://tickwire@127.0.0.1")
        #expect(url.port == 5432 && url.database == "tickwire" && url.password == nil)
        #expect(url.description == "postgres://tickwire@127.0.0.1:5432/tickwire")
        #expect(PostgresDatabaseURL.isPostgres("PostgreSQL://x@y/z"))
        #expect(!PostgresDatabaseURL.isPostgres("/var/lib/tickwire/portfolio.sqlite"))
        #expect(!PostgresDatabaseURL.isPostgres(":memory:"))
    }

    /// Each way a URL can be wrong is named, and the password is never repeated.
    @Test(arguments: [
        ("postgres://secret-pass@/db", "it names no host (postgres://user:password@host:port/database)"),
        ("postgres://:secret-pass@host/db", "it names no user (postgres://user:password@host:port/database)"),
        ("postgres://u:secret-pass@host:70000/db", "port 70000 is not between 1 and 65535"),
        ("postgres://u:secret-pass@host/db/more", "the database name \"db/more\" has a /"),
        ("postgres://u:secret-pass@host/db?sslmode=require", "sslmode=require is not supported: the portfolio connects without TLS (sslmode=disable)"),
        ("postgres://u:secret-pass@host/db?search=x", "unknown parameter search; only sslmode=disable is understood"),
        ("postgres://u:secret-pass@host:port/db", "not a URL of the form postgres://user:password@host:port/database"),
        ("mysql://u@host/db", "a PostgreSQL URL starts with postgres:// or postgresql://"),
    ])
    func badURLs(text: String, reason: String) {
        #expect(throws: PostgresURLError(reason)) { try PostgresDatabaseURL(text) }
        do {
            _ = try PostgresDatabaseURL(text)
        } catch {
            #expect(!error.description.contains("secret"))
        }
    }
}
