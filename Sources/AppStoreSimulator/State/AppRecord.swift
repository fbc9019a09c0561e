import Crypto

/// An app as stored, with everything resolved from its definition.
struct AppRecord: Sendable {
    var description: AppDescription
    var publicKey: P256.Signing.PublicKey
    var products: [String: ProductDefinition]

    var bundleID: String { description.bundleID }

    func product(_ productID: String) throws(SimulatorError) -> ProductDefinition {
        guard let product = products[productID] else {
            throw SimulatorError(.notFound, "product \(productID) does not exist in \(bundleID)")
        }
        return product
    }
}
