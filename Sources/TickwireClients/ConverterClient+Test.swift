import TickwireContract

extension ConverterClient {
    /// The converter's recorded answers (`scripts/record-client-fixtures.py`): the same whatever is asked;
    /// its price stream reports the recorded prices and then stays quiet.
    public static let test = Self(
        convert: Fixtures.answer("converter", "convert"),
        total: Fixtures.answer("converter", "total"),
        rates: Fixtures.answer("converter", "rates"),
        sources: Fixtures.answer("converter", "sources"),
        convertSeries: Fixtures.answer("converter", "convert.series"),
        health: Fixtures.answer("converter", "health"),
        prices: { .recorded { try Fixtures.snapshot("converter") { try $0.decode(ConverterAPI.prices)?.data } } })
}
