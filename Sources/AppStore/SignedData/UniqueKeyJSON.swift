/// Checks that JSON text is well formed and that no object in it names a key twice.
///
/// RFC 8259 leaves repeated names to the parser: Foundation's `JSONDecoder`, Apple's Java, Node.js and
/// Python libraries and SubLedger's own pre-verification readers need not agree on which value wins. A
/// signed payload that repeats a key could then be read one way here and another way by Apple's library,
/// so such payloads are refused before anything reads them. Keys compare after unescaping (`"a"` and
/// `"\u0061"` are the same key) and by Swift string equality, which is canonical equivalence: that refuses
/// a little more than byte equality would, never less.
///
/// One pass over the bytes with an explicit stack (no recursion), so hostile nesting cannot exhaust the
/// thread's stack. The same pass hands back the raw text of chosen top-level members, so a caller that
/// needs one field before the full decode (a JWS's signing date) does not parse the text again, or of every
/// member two levels deep (`members(of:)`), from which a payload is read without a JSON decoder.
enum UniqueKeyJSON {
    /// Nesting deeper than this is refused (Apple's payloads nest three levels).
    static let maximumDepth = 512

    /// Why a text was refused.
    enum Failure: Error, Equatable {
        /// Not JSON (or nested too deeply).
        case malformed
        /// An object names a key twice.
        case duplicateKey
    }

    /// Succeeds when `bytes` is one JSON value whose objects all have distinct keys, with the raw text of
    /// each member of the top-level object named in `capturing` (absent when the value is not an object or
    /// has no such member).
    static func check(
        _ bytes: some Collection<UInt8>, capturing: Set<String> = []
    ) -> Result<[String: [UInt8]], Failure> {
        let bytes = Array(bytes)
        // Validated once here, so that string values need not be decoded one by one (only keys are).
        guard isUTF8(bytes) else { return .failure(.malformed) }
        var scanner = Scanner(bytes: bytes, capturing: capturing)
        return scanner.run().map { scanner.captured }
    }

    /// `check(_:)` that also hands back where the value of every member of the top-level object lies, and of
    /// every member of each object that is a top-level member's value (a notification's `data`, a transaction's
    /// `commitmentInfo`): `nil` when the text is one JSON value but not an object. Still one pass over the bytes.
    static func members(of bytes: some Collection<UInt8>) -> Result<CapturedJSONObject?, Failure> {
        let bytes = Array(bytes)
        guard isUTF8(bytes) else { return .failure(.malformed) }
        var scanner = Scanner(bytes: bytes, capturing: [], capturingAll: true)
        return scanner.run().map {
            guard scanner.isObject else { return nil }
            return CapturedJSONObject(text: bytes, members: scanner.allMembers, nestedMembers: scanner.nestedMembers)
        }
    }

    /// The value of one JSON string (quotes included) that the scan has accepted, unescaped exactly as the scan
    /// unescapes keys; `nil` when `quoted` is not one string.
    static func unescapedString(_ quoted: ArraySlice<UInt8>) -> String? {
        var scanner = Scanner(bytes: Array(quoted), capturing: [])
        guard scanner.peek(UInt8(ascii: "\"")), let string = scanner.readString(keeping: true),
            scanner.index == scanner.bytes.count
        else { return nil }
        return string
    }

    /// Whether `bytes` are UTF-8. ASCII text (every header and payload Apple signs) is told by one pass over the
    /// bytes; other text is validated by building a `String` from it.
    static func isUTF8(_ bytes: [UInt8]) -> Bool {
        let union = bytes.withUnsafeBufferPointer { buffer in
            var union: UInt8 = 0
            for byte in buffer { union |= byte }
            return union
        }
        return union < 0x80 || String(validating: bytes, as: UTF8.self) != nil
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        /// Top-level member names whose values are wanted.
        let capturing: Set<String>
        /// The wanted values found so far, as raw JSON text.
        var captured: [String: [UInt8]] = [:]
        /// A wanted member whose value is being read: its name and where the value starts.
        var pending: (key: String, start: Int)?
        /// Whether every member's value is wanted, two levels deep (`members(of:)`), as ranges of `bytes`.
        let capturingAll: Bool
        /// When capturing all: where each top-level member's value lies.
        var allMembers: [String: Range<Int>] = [:]
        /// When capturing all: where each member of an object that is a top-level member's value lies, by the
        /// name of that top-level member.
        var nestedMembers: [String: [String: Range<Int>]] = [:]
        /// When capturing all: the top-level member whose value is being read.
        var topLevelKey = ""
        /// When capturing all: a member of such an object whose value is being read.
        var pendingNested: (key: String, start: Int)?
        /// Whether the text's value is an object.
        var isObject = false

        /// One open container: an object with the keys seen so far, or an array.
        enum Frame {
            case object(Set<String>)
            case array
        }

        init(bytes: [UInt8], capturing: Set<String>, capturingAll: Bool = false) {
            self.bytes = bytes
            self.capturing = capturing
            self.capturingAll = capturingAll
        }

        /// Where a value that started at `start` and has just been read ends, trailing whitespace left out.
        func valueEnd(from start: Int) -> Int {
            var end = index
            while end > start {
                switch bytes[end - 1] {
                case 0x20, 0x09, 0x0A, 0x0D: end -= 1
                default: return end
                }
            }
            return end
        }

        mutating func run() -> Result<Void, Failure> {
            var stack: [Frame] = []
            skipSpace()
            isObject = peek(UInt8(ascii: "{"))
            // `expectValue` is true where a value must come next; false where a separator or a close must.
            var expectValue = true
            while true {
                if expectValue {
                    guard index < bytes.count else { return .failure(.malformed) }
                    switch bytes[index] {
                    case UInt8(ascii: "{"):
                        index += 1
                        guard stack.count < UniqueKeyJSON.maximumDepth else { return .failure(.malformed) }
                        skipSpace()
                        if peek(UInt8(ascii: "}")) {
                            index += 1
                            expectValue = false
                        } else {
                            stack.append(.object([]))
                            if case .failure(let failure) = readKey(into: &stack) { return .failure(failure) }
                        }
                    case UInt8(ascii: "["):
                        index += 1
                        guard stack.count < UniqueKeyJSON.maximumDepth else { return .failure(.malformed) }
                        skipSpace()
                        if peek(UInt8(ascii: "]")) {
                            index += 1
                            expectValue = false
                        } else {
                            stack.append(.array)
                        }
                    case UInt8(ascii: "\""):
                        guard readString(keeping: false) != nil else { return .failure(.malformed) }
                        expectValue = false
                    default:
                        guard readLiteralOrNumber() else { return .failure(.malformed) }
                        expectValue = false
                    }
                    skipSpace()
                    continue
                }
                // After a value: the end of the text, a separator, or the close of the innermost container.
                guard let top = stack.last else {
                    return index == bytes.count ? .success(()) : .failure(.malformed)
                }
                if stack.count == 1, let member = pending {
                    // A whole member value of the top-level object has just been read.
                    let end = valueEnd(from: member.start)
                    if capturingAll {
                        allMembers[member.key] = member.start..<end
                    } else {
                        captured[member.key] = Array(bytes[member.start..<end])
                    }
                    pending = nil
                } else if stack.count == 2, let member = pendingNested {
                    // A whole member value of an object that is a top-level member's value.
                    nestedMembers[topLevelKey, default: [:]][member.key] = member.start..<valueEnd(from: member.start)
                    pendingNested = nil
                }
                guard index < bytes.count else { return .failure(.malformed) }
                let byte = bytes[index]
                index += 1
                skipSpace()
                switch (top, byte) {
                case (.object, UInt8(ascii: ",")):
                    if case .failure(let failure) = readKey(into: &stack) { return .failure(failure) }
                    expectValue = true
                case (.array, UInt8(ascii: ",")):
                    expectValue = true
                case (.object, UInt8(ascii: "}")), (.array, UInt8(ascii: "]")):
                    stack.removeLast()
                default:
                    return .failure(.malformed)
                }
            }
        }

        /// Reads `"key" :` for the innermost object and records the key.
        mutating func readKey(into stack: inout [Frame]) -> Result<Void, Failure> {
            guard peek(UInt8(ascii: "\"")), let key = readString(keeping: true) else { return .failure(.malformed) }
            guard case .object(var keys) = stack.removeLast() else { return .failure(.malformed) }
            guard keys.insert(key).inserted else { return .failure(.duplicateKey) }
            stack.append(.object(keys))
            skipSpace()
            guard peek(UInt8(ascii: ":")) else { return .failure(.malformed) }
            index += 1
            skipSpace()
            if stack.count == 1 {
                if capturingAll {
                    topLevelKey = key
                    pending = (key, index)
                } else if capturing.contains(key) {
                    pending = (key, index)
                }
            } else if stack.count == 2, capturingAll, case .object = stack[0] {
                // The innermost object is a top-level member's value itself (not inside an array there).
                pendingNested = (key, index)
            }
            return .success(())
        }

        func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        /// Reads a string starting at its opening quote and returns its unescaped value (empty unless
        /// `keeping`); `nil` when malformed (a control character, a bad escape, a lone surrogate, no closing
        /// quote).
        mutating func readString(keeping: Bool) -> String? {
            index += 1
            // Most strings hold no escape: their bytes up to the closing quote are the value. The whole text is
            // valid UTF-8 and the quote is ASCII, so those bytes are valid UTF-8 too.
            let start = index
            let end = bytes.withUnsafeBufferPointer { buffer in
                var end = start
                while end < buffer.count {
                    let byte = buffer[end]
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                    end += 1
                }
                return end
            }
            if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
                index = end + 1
                return keeping ? String(decoding: bytes[start..<end], as: UTF8.self) : ""
            }
            return readEscapedString(keeping: keeping)
        }

        /// `readString(keeping:)` for a string that holds an escape or a control character (refused), or has no
        /// closing quote (refused): `index` is just after the opening quote.
        mutating func readEscapedString(keeping: Bool) -> String? {
            var scalars = String.UnicodeScalarView()
            var run = index
            func flush(_ end: Int) -> Bool {
                guard keeping, run < end else { return true }
                guard let text = String(validating: bytes[run..<end], as: UTF8.self) else { return false }
                scalars.append(contentsOf: text.unicodeScalars)
                return true
            }
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    guard flush(index) else { return nil }
                    index += 1
                    return keeping ? String(scalars) : ""
                }
                if byte < 0x20 { return nil }
                if byte != UInt8(ascii: "\\") {
                    index += 1
                    continue
                }
                guard flush(index) else { return nil }
                index += 1
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    guard let unit = readHex4() else { return nil }
                    if (0xD800...0xDBFF).contains(unit) {
                        guard peek(UInt8(ascii: "\\")), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
                        else { return nil }
                        index += 2
                        guard let low = readHex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                        let value = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        guard let scalar = Unicode.Scalar(value) else { return nil }
                        scalars.append(scalar)
                    } else {
                        guard let scalar = Unicode.Scalar(unit) else { return nil }
                        scalars.append(scalar)
                    }
                default:
                    return nil
                }
                run = index
            }
            return nil
        }

        mutating func readHex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for byte in bytes[index..<(index + 4)] {
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: return nil
                }
                value = value << 4 | digit
            }
            index += 4
            return value
        }

        /// `true`, `false`, `null` or an RFC 8259 number.
        mutating func readLiteralOrNumber() -> Bool {
            for literal in ["true", "false", "null"] {
                let length = literal.utf8.count
                if index + length <= bytes.count, bytes[index..<(index + length)].elementsEqual(literal.utf8) {
                    index += length
                    return true
                }
            }
            func isDigit(_ position: Int) -> Bool {
                position < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position])
            }
            if peek(UInt8(ascii: "-")) { index += 1 }
            guard isDigit(index) else { return false }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                while isDigit(index) { index += 1 }
            }
            if peek(UInt8(ascii: ".")) {
                index += 1
                guard isDigit(index) else { return false }
                while isDigit(index) { index += 1 }
            }
            if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
                index += 1
                if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
                guard isDigit(index) else { return false }
                while isDigit(index) { index += 1 }
            }
            return true
        }
    }
}
