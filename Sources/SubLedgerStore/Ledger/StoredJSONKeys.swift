/// The member names one stored type knows, matched against a name's bytes without making a string.
struct StoredJSONKeys: Sendable {
    private let names: [[UInt8]]

    /// At most 64 names (`StoredJSONReader` keeps the ones seen in a 64-bit set).
    init(_ names: [String]) {
        precondition(names.count <= 64, "at most 64 names per object")
        self.names = names.map { Array($0.utf8) }
    }

    func name(at index: Int) -> String {
        String(decoding: names[index], as: UTF8.self)
    }

    /// The index of the name spelled by `utf8`, or `nil`.
    func index(of utf8: UnsafeBufferPointer<UInt8>) -> Int? {
        for index in names.indices {
            let matches = names[index].withUnsafeBufferPointer { name in
                guard name.count == utf8.count else { return false }
                for position in 0..<name.count where name[position] != utf8[position] { return false }
                return true
            }
            if matches { return index }
        }
        return nil
    }
}
