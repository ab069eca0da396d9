import Money

extension CurrencyAmount: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("An amount in a currency, e.g. 12.50 EUR. Codable as `{\"amount\":\"12.50\",\"currency\":\"EUR\"}`.", [
            "amount": .required(.money, "The exact amount."),
            "currency": .required(.currency, "The currency code, e.g. \"EUR\"."),
        ])
    }
}

extension ExchangeRate: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One rate as a source gives it: 1 `from` = `rate` `to`. Codable as `{\"from\":\"EUR\",\"to\":\"USD\",\"rate\":\"1.359\"}`.", [
            "from": .required(.currency, "The currency being priced."),
            "to": .required(.currency, "The currency the price is in."),
            "rate": .required(.money, "How many `to` one `from` buys."),
        ])
    }
}
