/// Results grouped into sections that share a title: a collection of ``ResultsSection``.
///
/// ``ResultsObserver/sections`` returns one when the observer was made with `sectionBy:`.
/// Sections come in the order their titles first appear in the sorted results.
/// ```swift
/// let trips = try ResultsObserver<Trip, String>(sortBy: [SortDescriptor(\.name)], sectionBy: \.destination, modelContext: context)
/// for section in trips.sections ?? SectionedResults() {
///     print(section.title, section.map(\.name))
/// }
/// let norway = trips.sections?[sectionTitle: "Norway"]?.count
/// ```
public struct SectionedResults<Element, SectionTitle>: RandomAccessCollection where Element: PersistentModel, SectionTitle: Hashable {
    private let sections: [ResultsSection<Element, SectionTitle>]
    private let positions: [SectionTitle: Int]

    /// No sections.
    public init() {
        sections = []
        positions = [:]
    }

    /// Groups `models`, kept in their order, by `title`.
    init(models: some Sequence<Element>, title: (Element) -> SectionTitle) {
        var titles: [SectionTitle] = []
        var members: [[Element]] = []
        var positions: [SectionTitle: Int] = [:]
        for model in models {
            let key = title(model)
            if let position = positions[key] {
                members[position].append(model)
            } else {
                positions[key] = titles.count
                titles.append(key)
                members.append([model])
            }
        }
        sections = zip(titles, members).map { ResultsSection(title: $0, elements: $1) }
        self.positions = positions
    }

    /// The section titles in order.
    public var sectionTitles: [SectionTitle] { sections.map(\.title) }

    /// The section with `title`, or `nil` when no model has it.
    ///
    /// - Complexity: O(1).
    public subscript(sectionTitle title: SectionTitle) -> ResultsSection<Element, SectionTitle>? {
        positions[title].map { sections[$0] }
    }

    /// The position of the first section.
    public var startIndex: Int { sections.startIndex }

    /// The position after the last section.
    public var endIndex: Int { sections.endIndex }

    /// The section at `position`.
    public subscript(position: Int) -> ResultsSection<Element, SectionTitle> { sections[position] }
}

/// The models of one section of ``SectionedResults``: those that share ``title``, in the
/// results' order.
public struct ResultsSection<Element, SectionTitle>: RandomAccessCollection, Identifiable
where Element: PersistentModel, SectionTitle: Hashable {
    /// The value of the `sectionBy` key path that every model of this section shares.
    public let title: SectionTitle
    private let elements: [Element]

    init(title: SectionTitle, elements: [Element]) {
        self.title = title
        self.elements = elements
    }

    /// The section's identity: its ``title``.
    public var id: SectionTitle { title }

    /// The position of the first model.
    public var startIndex: Int { elements.startIndex }

    /// The position after the last model.
    public var endIndex: Int { elements.endIndex }

    /// The model at `position`.
    public subscript(position: Int) -> Element { elements[position] }
}
