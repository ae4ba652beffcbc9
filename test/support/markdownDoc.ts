// Reading a model's documentation page, for the tests that keep each page equal to its code.
export const readDoc = async (name: string) => {
  const doc = await Bun.file(new URL(`../../docs/${name}`, import.meta.url)).text()
  const lines = doc.split("\n")

  /** The part of the page under a heading, up to the next heading of the same or a higher level. */
  const sectionOf = (heading: string): string => {
    const start = lines.indexOf(heading)
    const level = heading.split(" ")[0] ?? "##"
    const end = lines.findIndex(
      (line, index) => index > start && /^#+ /.test(line) && (line.split(" ")[0] ?? "").length <= level.length
    )
    return start === -1 ? `(no section ${heading})` : lines.slice(start, end === -1 ? undefined : end).join("\n")
  }

  /** The table row whose first cell is `name` in backticks. */
  const rowOf = (name: string, within: string = doc) =>
    within.split("\n").find((line) => line.startsWith(`| \`${name}\` |`)) ?? `(no row for ${name})`

  /** The JSON block that follows a marker comment. */
  const jsonAfter = (marker: string): unknown => {
    const from = doc.indexOf(marker)
    const open = doc.indexOf("```json\n", from) + "```json\n".length
    return JSON.parse(doc.slice(open, doc.indexOf("```", open)))
  }

  return { doc, lines, sectionOf, rowOf, jsonAfter }
}
