/** A partition picker: "all" (or the given first choice) then 0..partitions-1. */
export function PartitionSelect(props: {
  partitions: number
  value: string
  onChange: (v: string) => void
  anyLabel?: string
  name?: string
}) {
  return (
    <label>
      Partition
      <select
        name={props.name ?? 'partition'}
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      >
        <option value="">{props.anyLabel ?? 'all'}</option>
        {Array.from({ length: props.partitions }, (_, i) => (
          <option key={i} value={String(i)}>
            {i}
          </option>
        ))}
      </select>
    </label>
  )
}
