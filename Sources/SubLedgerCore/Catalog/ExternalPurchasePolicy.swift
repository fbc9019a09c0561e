/// Whether an app reports its web purchases with the External Purchase Server API, as required of an iOS app that
/// links out to buy: each purchase's external purchase token, taken with the order, and its transactions
/// (docs/guides/stripe.md, "External Purchase reporting").
public struct ExternalPurchasePolicy: Hashable, Sendable, Codable {
    /// Take external purchase tokens with orders and report them. Default `false`: a token given with an order is
    /// refused.
    public var report: Bool
    /// The country reports name as `taxCountry` (ISO 3166-1 alpha-3, three capital letters): where the web sales
    /// are taxed. Required with `report`: reports must state one, and SubLedger does not read the customer's
    /// country from Stripe.
    public var taxCountry: String?

    public init(report: Bool = false, taxCountry: String? = nil) {
        self.report = report
        self.taxCountry = taxCountry
    }

    /// Nothing is reported.
    public static let off = ExternalPurchasePolicy()

    /// Whether the policy can be served: off, or reporting with a tax country of three capital letters.
    public var isValid: Bool {
        guard report else { return true }
        guard let country = taxCountry else { return false }
        return country.utf8.count == 3 && country.utf8.allSatisfy { (0x41...0x5A).contains($0) }
    }

    enum CodingKeys: String, CodingKey {
        case report
        case taxCountry = "tax_country"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        report = try container.decodeIfPresent(Bool.self, forKey: .report) ?? false
        taxCountry = try container.decodeIfPresent(String.self, forKey: .taxCountry)
    }
}
