/// The order a form's fields are visited in by next and previous: by position, top to
/// bottom, then left to right, whatever order they were declared in.
///
/// ```swift
/// let order = try FieldOrder([
///     .init(id: "email", frame: Rect(x: 16, y: 60, width: 288, height: 44)),
///     .init(id: "first", frame: Rect(x: 16, y: 8, width: 136, height: 44)),
///     .init(id: "last", frame: Rect(x: 168, y: 8, width: 136, height: 44)),
/// ])
/// order.ids                     // ["first", "last", "email"]
/// order.next(after: "last")     // "email"
/// order.next(after: "email")    // nil: the last field (its return key reads "Done")
/// ```
///
/// Fields are compared by their frame's top edge, then its left edge; fields at the very
/// same place keep their declared order. Ids are unique. A field that moves (a multi-line
/// field above it grew) takes its new place at once.
public struct FieldOrder<ID: Hashable & Sendable>: Sendable, Equatable {
    public struct Field: Sendable, Equatable {
        public var id: ID
        /// In content coordinates.
        public var frame: Rect

        public init(id: ID, frame: Rect) {
            self.id = id
            self.frame = frame
        }
    }

    /// The fields in visiting order.
    public private(set) var fields: [Field]
    /// Each id's place in the declaration, which breaks ties between equal positions.
    private let declared: [ID: Int]

    /// Throws `FormError.duplicateField` for an id given twice, and the geometry errors
    /// for a frame that is not finite or has a negative size.
    public init(_ fields: [Field]) throws {
        var declared: [ID: Int] = [:]
        for (index, field) in fields.enumerated() {
            try FormError.check(field.frame, .fieldFrame)
            guard declared.updateValue(index, forKey: field.id) == nil else {
                throw FormError.duplicateField(String(reflecting: field.id))
            }
        }
        self.declared = declared
        self.fields = fields
        sort()
    }

    public var ids: [ID] { fields.map(\.id) }
    public var first: ID? { fields.first?.id }
    public var last: ID? { fields.last?.id }

    /// The field's place in the visiting order.
    public func index(of id: ID) -> Int? { fields.firstIndex { $0.id == id } }

    public func frame(of id: ID) -> Rect? { index(of: id).map { fields[$0].frame } }

    /// The field visited after `id`: nil after the last field, or for an unknown id.
    public func next(after id: ID) -> ID? {
        guard let index = index(of: id), index + 1 < fields.count else { return nil }
        return fields[index + 1].id
    }

    /// The field visited before `id`: nil before the first field, or for an unknown id.
    public func previous(before id: ID) -> ID? {
        guard let index = index(of: id), index > 0 else { return nil }
        return fields[index - 1].id
    }

    /// Field `id` moved or changed size; it takes its place in the order.
    public mutating func setFrame(_ frame: Rect, of id: ID) throws {
        try FormError.check(frame, .fieldFrame)
        guard let index = index(of: id) else { throw FormError.unknownField(String(reflecting: id)) }
        fields[index].frame = frame
        sort()
    }

    /// Several fields moved at once (a layout pass); they are sorted once. Throws,
    /// changing nothing, for an unknown id or a bad frame.
    public mutating func setFrames(_ frames: [ID: Rect]) throws {
        guard !frames.isEmpty else { return }
        var updated = fields
        for (id, frame) in frames {
            try FormError.check(frame, .fieldFrame)
            guard let index = updated.firstIndex(where: { $0.id == id }) else {
                throw FormError.unknownField(String(reflecting: id))
            }
            updated[index].frame = frame
        }
        fields = updated
        sort()
    }

    private mutating func sort() {
        let declared = declared
        fields.sort { a, b in
            if a.frame.minY != b.frame.minY { return a.frame.minY < b.frame.minY }
            if a.frame.minX != b.frame.minX { return a.frame.minX < b.frame.minX }
            return declared[a.id, default: 0] < declared[b.id, default: 0]
        }
    }
}
