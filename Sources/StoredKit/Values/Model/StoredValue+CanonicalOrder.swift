import Foundation

extension StoredValue {
    /// `values` in the order a set's elements are stored in: by their text, and where two texts
    /// are equal (dates within one second, which the ISO 8601 text rounds away), by an exact
    /// rendering, so that equal sets always store equal arrays whatever their own order.
    static func canonicallySorted(_ values: [StoredValue]) -> [StoredValue] {
        // Each text is made once, not once per comparison.
        let keyed = values.map { (text: $0.description, value: $0) }
        return keyed.sorted { left, right in
            left.text != right.text ? left.text < right.text : left.value.exactDescription < right.value.exactDescription
        }.map(\.value)
    }

    /// ``description`` made one-to-one: dates to the bit, dictionary keys quoted. Containers deeper
    /// than ``maximumDepth`` (built by hand, and refused when stored) are not walked.
    private var exactDescription: String { exactDescription(depth: 0) }

    private func exactDescription(depth: Int) -> String {
        switch self {
        case .date(let value): "@" + String(value.timeIntervalSinceReferenceDate)
        case .array where depth >= Self.maximumDepth: description
        case .dictionary where depth >= Self.maximumDepth: description
        case .array(let values): "(" + values.map { $0.exactDescription(depth: depth + 1) }.joined(separator: ", ") + ")"
        case .dictionary(let values):
            "{"
                + values.sorted { $0.key < $1.key }
                .map { StoredValue.string($0.key).description + " = " + $0.value.exactDescription(depth: depth + 1) }
                .joined(separator: "; ") + "}"
        default: description
        }
    }
}
