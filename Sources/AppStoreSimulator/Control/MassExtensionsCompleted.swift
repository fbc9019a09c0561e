/// What `POST /control/extensions/mass/complete` did.
public struct MassExtensionsCompleted: Sendable, Codable, Hashable {
    /// How many mass extensions it completed (those already complete are not counted).
    public var completed: Int

    public init(completed: Int) {
        self.completed = completed
    }
}
