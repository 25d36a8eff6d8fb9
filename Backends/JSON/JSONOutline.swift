import Foundation

/// Where the parts of a document lie, found by a scan that builds no tree: the value of
/// each top-level member, and the array of each entity under `entities`.
///
/// With an outline, ``JSONDocument`` parses the small members whole and an entity's records
/// one at a time, each freed before the next is parsed, instead of holding the tree of every
/// record at once (about a kilobyte a record in json-c). The scan checks only the structure
/// it reads itself: whitespace, punctuation and member names. The values it steps over are
/// checked when json-c parses them. It gives up, and the document is parsed whole, on
/// anything unusual: a member name with an escape, a byte outside printable ASCII or a
/// repeat; an `entities` member that is not an object of arrays; text after the document.
struct JSONOutline {
    /// A member's name and the bytes of its value.
    struct Member {
        let name: String
        let value: Range<Int>
    }

    /// An entity's member of `entities`: its name, and the bytes of its array and of each element.
    struct Entity {
        let name: String
        let value: Range<Int>
        let elements: [Range<Int>]
    }

    /// The top-level members, in document order.
    private(set) var members: [Member] = []
    /// The members of `entities`, in document order; `nil` when the document has no
    /// `entities` member.
    private(set) var entities: [Entity]?

    /// Outlines `text`, or `nil` when the scan gives up.
    init?(_ text: UnsafeRawBufferPointer) {
        var scanner = Scanner(text: text)
        var entities: [Entity]?
        let members = scanner.objectMembers { scanner, name in
            guard name == "entities" else { return scanner.skipValue() }
            // The entities' arrays are read element by element in this one pass.
            var list: [Entity] = []
            let found = scanner.objectMembers { scanner, name in
                let start = scanner.position
                guard let elements = scanner.arrayElements() else { return false }
                list.append(Entity(name: name, value: start..<scanner.position, elements: elements))
                return true
            }
            entities = list
            return found != nil
        }
        guard let members, scanner.atEnd else { return nil }
        self.members = members
        self.entities = entities
    }

    /// Steps through JSON text; each method returns `nil` or `false` where the text is not
    /// what it reads.
    struct Scanner {
        let text: UnsafeRawBufferPointer
        var position = 0

        /// Skips the four whitespace characters JSON allows.
        mutating func skipWhitespace() {
            while position < text.count {
                switch text[position] {
                case 0x20, 0x0A, 0x0D, 0x09: position += 1
                default: return
                }
            }
        }

        /// Whether only whitespace is left.
        var atEnd: Bool {
            mutating get {
                skipWhitespace()
                return position == text.count
            }
        }

        /// Reads `byte` after any whitespace.
        mutating func expect(_ byte: UInt8) -> Bool {
            skipWhitespace()
            guard position < text.count, text[position] == byte else { return false }
            position += 1
            return true
        }

        /// The members of the object at the position, each value read by `readValue` (which
        /// steps over it, or returns `false`), with the position after its closing brace;
        /// `nil` when a name repeats.
        mutating func objectMembers(_ readValue: (inout Scanner, String) -> Bool) -> [Member]? {
            guard expect(UInt8(ascii: "{")) else { return nil }
            var members: [Member] = []
            var names = Set<String>()
            if expect(UInt8(ascii: "}")) { return members }
            repeat {
                skipWhitespace()
                guard let name = plainName(), names.insert(name).inserted, expect(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                let start = position
                guard readValue(&self, name) else { return nil }
                members.append(Member(name: name, value: start..<position))
            } while expect(UInt8(ascii: ","))
            return expect(UInt8(ascii: "}")) ? members : nil
        }

        /// The bytes of each element of the array at the position, with the position after
        /// its closing bracket.
        mutating func arrayElements() -> [Range<Int>]? {
            guard expect(UInt8(ascii: "[")) else { return nil }
            var elements: [Range<Int>] = []
            if expect(UInt8(ascii: "]")) { return elements }
            repeat {
                skipWhitespace()
                let start = position
                guard skipValue() else { return nil }
                elements.append(start..<position)
            } while expect(UInt8(ascii: ","))
            return expect(UInt8(ascii: "]")) ? elements : nil
        }

        /// A member name of printable ASCII without escapes.
        mutating func plainName() -> String? {
            guard position < text.count, text[position] == UInt8(ascii: "\"") else { return nil }
            let start = position + 1
            var end = start
            while end < text.count, text[end] != UInt8(ascii: "\"") {
                guard text[end] >= 0x20, text[end] < 0x7F, text[end] != UInt8(ascii: "\\") else { return nil }
                end += 1
            }
            guard end < text.count else { return nil }
            position = end + 1
            return String(decoding: UnsafeRawBufferPointer(rebasing: text[start..<end]), as: UTF8.self)
        }

        /// Steps over one value: a string to its closing quote, an object or array to the
        /// bracket that closes it (brackets inside strings not counted), anything else to the
        /// next delimiter. What the value holds is left for json-c to check.
        mutating func skipValue() -> Bool {
            guard position < text.count else { return false }
            switch text[position] {
            case UInt8(ascii: "\""):
                return skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while position < text.count {
                    switch text[position] {
                    case UInt8(ascii: "\""):
                        guard skipString() else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            position += 1
                            return true
                        }
                    default: break
                    }
                    position += 1
                }
                return false
            default:
                let start = position
                while position < text.count {
                    switch text[position] {
                    case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09:
                        return position > start
                    default: position += 1
                    }
                }
                return position > start
            }
        }

        /// Steps over the string at the position, to after its closing quote: the first
        /// quote after an even number of backslashes.
        mutating func skipString() -> Bool {
            guard let base = text.baseAddress else { return false }
            var from = position + 1
            while from < text.count, let quote = memchr(base + from, Int32(UInt8(ascii: "\"")), text.count - from) {
                let at = base.distance(to: UnsafeRawPointer(quote))
                var backslashes = 0
                while at - backslashes - 1 >= from, text[at - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
                from = at + 1
                if backslashes % 2 == 0 {
                    position = from
                    return true
                }
            }
            return false
        }
    }
}
