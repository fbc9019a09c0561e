/// An Apple ID's relation with one app: the unit of a receipt and of the Server API's history.
struct AccountAppKey: Hashable, Sendable {
    var appleID: String
    var bundleID: String
}
