import { useLoad } from '../api';
import { ErrorLine } from '../errors';

/** Every provider's capabilities side by side: one row per capability, one column per provider. */
export function ProvidersPage() {
  const { value: providers, error } = useLoad((client) => client.providers(), []);
  const names = [...new Set((providers ?? []).flatMap((p) => Object.keys(p.capabilities)))].sort();
  return (
    <section>
      <h1>Providers</h1>
      <ErrorLine error={error} />
      {providers && (
        <div class="scroll">
          <table class="matrix">
            <thead>
              <tr>
                <th>Capability</th>
                {providers.map((p) => (
                  <th scope="col" title={p.id}>
                    {p.displayName}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {names.map((name) => (
                <tr>
                  <th scope="row">{name}</th>
                  {providers.map((p) => {
                    const level = p.capabilities[name] ?? 'absent';
                    return <td class={`level ${level}`}>{level}</td>;
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
