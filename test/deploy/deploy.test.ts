/**
 * The deployment files: deploy/sattrack.service passes `systemd-analyze verify`
 * and has the dynamic user, the state directory and the hardening; the
 * Kubernetes manifest parses and has a Deployment with readiness and liveness
 * probes on the healthcheck, a Service and a HorizontalPodAutoscaler.
 */
import { describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SYSTEMD_ANALYZE, testWith } from '../helpers/tools.ts'

const ROOT = join(import.meta.dir, '../..')
const UNIT = readFileSync(join(ROOT, 'deploy/sattrack.service'), 'utf8')
const HEALTHCHECK = '/api/v1/service/healthcheck'

/** `Key=value` settings of one section of a unit file (repeated keys keep every value). */
function section(unit: string, name: string): Map<string, string[]> {
  const settings = new Map<string, string[]>()
  let current = ''
  for (const raw of unit.split('\n')) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue
    const header = /^\[(.+)\]$/.exec(line)
    if (header) {
      current = header[1]!
      continue
    }
    if (current !== name) continue
    const eq = line.indexOf('=')
    const key = line.slice(0, eq)
    settings.set(key, [...(settings.get(key) ?? []), line.slice(eq + 1)])
  }
  return settings
}

describe('deploy/sattrack.service', () => {
  testWith([SYSTEMD_ANALYZE])('systemd-analyze verify accepts it (and refuses a broken copy)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sattrack-unit-'))
    try {
      // verify also checks that ExecStart exists: point it at an executable that does, nothing else changed.
      const unit = UNIT.replace(/^ExecStart=\/usr\/local\/bin\/sattrack/m, `ExecStart=${process.execPath}`)
      expect(unit).not.toBe(UNIT)
      writeFileSync(join(dir, 'sattrack.service'), unit)
      const verify = (path: string) => Bun.spawnSync(['systemd-analyze', 'verify', path], { stdout: 'pipe', stderr: 'pipe' })
      const ok = verify(join(dir, 'sattrack.service'))
      expect(ok.stderr.toString().trim()).toBe('')
      expect(ok.exitCode).toBe(0)
      writeFileSync(join(dir, 'broken.service'), unit.replace('ProtectSystem=strict', 'ProtectSystem=sometimes').replace('[Service]', '[Service]\nExecStart=relative/path'))
      const broken = verify(join(dir, 'broken.service'))
      expect(`${broken.exitCode} ${broken.stderr}`).toMatch(/ProtectSystem|ExecStart|relative/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a dynamic user with its data dir in StateDirectory', () => {
    const service = section(UNIT, 'Service')
    expect(service.get('DynamicUser')).toEqual(['yes'])
    expect(service.get('StateDirectory')).toEqual(['sattrack'])
    expect(service.get('Environment')).toContain('SATTRACK_DATA_DIR=/var/lib/sattrack')
    expect(service.get('ExecStart')![0]).toStartWith('/usr/local/bin/sattrack')
    // systemctl reload: SIGHUP reads --snapshot again (test/e2e/reload.test.ts).
    expect(service.get('ExecReload')).toEqual(['/bin/kill -HUP $MAINPID'])
  })

  test('the usual hardening; SIGTERM with time to finish requests in flight', () => {
    const service = section(UNIT, 'Service')
    const expected: [string, string][] = [
      ['NoNewPrivileges', 'yes'],
      ['ProtectSystem', 'strict'],
      ['ProtectHome', 'yes'],
      ['PrivateTmp', 'yes'],
      ['PrivateDevices', 'yes'],
      ['ProtectKernelTunables', 'yes'],
      ['ProtectKernelModules', 'yes'],
      ['ProtectControlGroups', 'yes'],
      ['RestrictNamespaces', 'yes'],
      ['RestrictSUIDSGID', 'yes'],
      ['LockPersonality', 'yes'],
      ['CapabilityBoundingSet', ''],
      ['SystemCallArchitectures', 'native'],
      ['KillSignal', 'SIGTERM'],
      // SIGTERM to the supervisor alone, which stops its workers (a second SIGTERM would cut their requests short).
      ['KillMode', 'mixed'],
    ]
    for (const [key, value] of expected) {
      expect([key, service.get(key)]).toEqual([key, [value]])
    }
    expect(service.get('RestrictAddressFamilies')![0]).toBe('AF_INET AF_INET6 AF_UNIX')
    expect(service.get('SystemCallFilter')).toContain('@system-service')
    // The JIT needs writable executable memory.
    expect(service.has('MemoryDenyWriteExecute')).toBe(false)
    // Longer than the 10 s the service gives requests in flight.
    expect(Number.parseInt(service.get('TimeoutStopSec')![0]!, 10)).toBeGreaterThan(10)
    expect(section(UNIT, 'Install').get('WantedBy')).toEqual(['multi-user.target'])
  })
})

describe('deploy/kubernetes.yaml', () => {
  const documents = Bun.YAML.parse(readFileSync(join(ROOT, 'deploy/kubernetes.yaml'), 'utf8')) as any[]
  const ofKind = (kind: string) => documents.find((d) => d?.kind === kind)

  test('parses into a Deployment, a Service and a HorizontalPodAutoscaler', () => {
    expect(Array.isArray(documents)).toBe(true)
    expect(documents.map((d) => d.kind)).toEqual(expect.arrayContaining(['Deployment', 'Service', 'HorizontalPodAutoscaler']))
    for (const d of documents) {
      expect(d.apiVersion).toBeString()
      expect(d.metadata.name).toBe('sattrack')
    }
  })

  test('the Deployment: readiness and liveness probes on the healthcheck, a graceful stop, a locked-down container', () => {
    const deployment = ofKind('Deployment')
    expect(deployment.apiVersion).toBe('apps/v1')
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2)
    const pod = deployment.spec.template
    expect(deployment.spec.selector.matchLabels).toEqual(pod.metadata.labels)
    const container = pod.spec.containers[0]
    const port = container.ports.find((p: any) => p.name === 'http')
    for (const probe of [container.readinessProbe, container.livenessProbe]) {
      expect(probe.httpGet.path).toBe(HEALTHCHECK)
      expect([port.name, port.containerPort]).toContain(probe.httpGet.port)
    }
    const env = Object.fromEntries(container.env.map((e: any) => [e.name, e.value]))
    expect(Number(env.SATTRACK_PORT)).toBe(port.containerPort)
    expect(env.SATTRACK_HOST).toBe('0.0.0.0')
    expect(env.SATTRACK_DATA_DIR).toBe(container.volumeMounts.find((m: any) => m.name === 'data').mountPath)
    expect(pod.spec.terminationGracePeriodSeconds).toBeGreaterThan(10)
    expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } })
    expect(pod.spec.securityContext.runAsNonRoot).toBe(true)
    expect(container.resources.requests.cpu).toBeString()
  })

  test('the Service selects the pods; the autoscaler targets the Deployment', () => {
    const deployment = ofKind('Deployment')
    const service = ofKind('Service')
    expect(service.spec.selector).toEqual(deployment.spec.template.metadata.labels)
    expect(service.spec.ports[0].targetPort).toBe('http')
    const hpa = ofKind('HorizontalPodAutoscaler')
    expect(hpa.apiVersion).toBe('autoscaling/v2')
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name })
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2)
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas)
    expect(hpa.spec.metrics[0].resource.name).toBe('cpu')
  })
})
