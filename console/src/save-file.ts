/**
 * Saves text the page holds as a file of the person's (a Blob behind a download link), for the
 * console's exports and the recipient's statement alike: no server round trip, no URL with data.
 */
export const saveText = (text: string, filename: string, type = 'text/csv;charset=utf-8') => {
  const url = URL.createObjectURL(new Blob([text], { type }))
  const link = document.createElement('a')
  link.href = url
  link.download = filename
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}
