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

    /// ``description`` made one-to-one: dates to the bit, dictionary keys quoted.
    private var exactDescription: String { rendered(exact: true) }
}
