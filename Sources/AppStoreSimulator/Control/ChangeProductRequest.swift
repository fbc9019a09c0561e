/// Change the product of a subscription within its group.
public struct ChangeProductRequest: Sendable, Codable, Hashable {
    /// The product to change to.
    public var productID: String

    /// Creates a request.
    public init(productID: String) { self.productID = productID }
}
