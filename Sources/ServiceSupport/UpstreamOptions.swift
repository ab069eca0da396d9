import ArgumentParser
import TickwireStack

/// `--fetcher-pub` and `--fetcher-rep`: where rates-fetcher is.
public struct FetcherEndpoints: ParsableArguments {
    @Option(name: .customLong("fetcher-pub"), help: .init(DefaultEndpoint.ratesFetcherPub.help("rates-fetcher's stream")))
    var pub: String?
    @Option(name: .customLong("fetcher-rep"), help: .init(DefaultEndpoint.ratesFetcherRep.help("rates-fetcher's JSON-RPC")))
    var rep: String?

    public init() {}

    /// rates-fetcher's PUB endpoint from flag, environment or default.
    public var pubEndpoint: String { DefaultEndpoint.ratesFetcherPub.resolve(pub) }
    /// rates-fetcher's REP endpoint from flag, environment or default.
    public var repEndpoint: String { DefaultEndpoint.ratesFetcherRep.resolve(rep) }
}

/// `--converter-pub` and `--converter-rep`: where the converter is.
public struct ConverterEndpoints: ParsableArguments {
    @Option(name: .customLong("converter-pub"), help: .init(DefaultEndpoint.converterPub.help("the converter's price stream")))
    var pub: String?
    @Option(name: .customLong("converter-rep"), help: .init(DefaultEndpoint.converterRep.help("the converter's JSON-RPC")))
    var rep: String?

    public init() {}

    /// The converter's PUB endpoint from flag, environment or default.
    public var pubEndpoint: String { DefaultEndpoint.converterPub.resolve(pub) }
    /// The converter's REP endpoint from flag, environment or default.
    public var repEndpoint: String { DefaultEndpoint.converterRep.resolve(rep) }
}

/// `--portfolio-pub` and `--portfolio-rep`: where the portfolio is.
public struct PortfolioEndpoints: ParsableArguments {
    @Option(name: .customLong("portfolio-pub"), help: .init(DefaultEndpoint.portfolioPub.help("the portfolio's change stream")))
    var pub: String?
    @Option(name: .customLong("portfolio-rep"), help: .init(DefaultEndpoint.portfolioRep.help("the portfolio's JSON-RPC")))
    var rep: String?

    public init() {}

    /// The portfolio's PUB endpoint from flag, environment or default.
    public var pubEndpoint: String { DefaultEndpoint.portfolioPub.resolve(pub) }
    /// The portfolio's REP endpoint from flag, environment or default.
    public var repEndpoint: String { DefaultEndpoint.portfolioRep.resolve(rep) }
}
