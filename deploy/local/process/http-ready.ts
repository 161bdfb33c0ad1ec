/** Resolves once `GET <url>/readyz` answers 2xx; otherwise the error quotes its answer. */
export async function httpIsReady(url: string): Promise<void> {
  const response = await fetch(`${url}/readyz`);
  if (!response.ok)
    throw new Error(
      `readyz answered ${String(response.status)}: ${(await response.text()).slice(0, 300)}`,
    );
}
