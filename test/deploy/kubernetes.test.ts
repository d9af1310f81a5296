// deploy/kubernetes, offline: every manifest against Kubernetes' and KEDA's
// schemas (kubernetes-models, @kubernetes-models/keda), unknown fields
// caught by TypeScript's excess-property check against the same models'
// types (their validators accept unknown fields, as the API server's
// OpenAPI does), every kustomization listing exactly its folder's files, and
// the settings that must agree with the code and with each other.

import { readdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import ts from 'typescript'
import { parse, parseAllDocuments } from 'yaml'
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1'
import { Deployment } from 'kubernetes-models/apps/v1'
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2'
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1'
import { ConfigMap, PersistentVolumeClaim, Service } from 'kubernetes-models/v1'
import { PACKAGE_ROOT } from '../../src/package-root.js'
import { VOICE_HEADER } from '../../src/synthesis/tts-request.js'
import { ServiceMetrics } from '../../src/http/metrics.js'

const K8S = join(PACKAGE_ROOT, 'deploy/kubernetes')
const FOLDERS = ['base', 'keda', 'envoy']

interface Model { validate: () => void }
// Each kind: its model class, and where its TypeScript interface lives.
const MODELS: Record<string, { make: (data: any) => Model, type: [string, string] }> = {
  'v1/ConfigMap': { make: data => new ConfigMap(data), type: ['kubernetes-models/v1/ConfigMap', 'IConfigMap'] },
  'v1/PersistentVolumeClaim': { make: data => new PersistentVolumeClaim(data), type: ['kubernetes-models/v1/PersistentVolumeClaim', 'IPersistentVolumeClaim'] },
  'v1/Service': { make: data => new Service(data), type: ['kubernetes-models/v1/Service', 'IService'] },
  'apps/v1/Deployment': { make: data => new Deployment(data), type: ['kubernetes-models/apps/v1/Deployment', 'IDeployment'] },
  'policy/v1/PodDisruptionBudget': { make: data => new PodDisruptionBudget(data), type: ['kubernetes-models/policy/v1/PodDisruptionBudget', 'IPodDisruptionBudget'] },
  'autoscaling/v2/HorizontalPodAutoscaler': { make: data => new HorizontalPodAutoscaler(data), type: ['kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler', 'IHorizontalPodAutoscaler'] },
  'keda.sh/v1alpha1/ScaledObject': { make: data => new ScaledObject(data), type: ['@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject', 'IScaledObject'] }
}

interface Manifest { file: string, doc: any }

async function loadFolder (folder: string): Promise<{ kustomization: any, manifests: Manifest[], files: string[] }> {
  const dir = join(K8S, folder)
  const kustomization = parse(await readFile(join(dir, 'kustomization.yaml'), 'utf8'))
  const files = readdirSync(dir).filter(name => name !== 'kustomization.yaml').sort()
  const manifests: Manifest[] = []
  for (const file of (kustomization.resources as string[]).filter(path => !path.startsWith('../'))) {
    for (const document of parseAllDocuments(await readFile(join(dir, file), 'utf8'))) {
      t.equal(document.errors.length, 0, `${folder}/${file} parses`)
      manifests.push({ file: `${folder}/${file}`, doc: document.toJS() })
    }
  }
  return { kustomization, manifests, files }
}

const folders = Object.fromEntries(await Promise.all(FOLDERS.map(async folder => [folder, await loadFolder(folder)] as const)))
const all = Object.values(folders).flatMap(folder => folder.manifests)
const find = (kind: string, name: string): any => all.find(m => m.doc.kind === kind && m.doc.metadata.name === name)?.doc

t.test('each kustomization lists exactly the files in its folder', async t => {
  for (const folder of FOLDERS) {
    const { kustomization, files } = folders[folder]
    t.equal(kustomization.apiVersion, 'kustomize.config.k8s.io/v1beta1', folder)
    t.equal(kustomization.kind, 'Kustomization', folder)
    const listed = [
      ...(kustomization.resources as string[]).filter(path => !path.startsWith('../')),
      ...((kustomization.configMapGenerator ?? []) as Array<{ files: string[] }>).flatMap(generator => generator.files)
    ].sort()
    t.same(listed, files, `${folder}: listed = present`)
    for (const parent of (kustomization.resources as string[]).filter(path => path.startsWith('../'))) {
      t.ok(FOLDERS.includes(parent.slice(3)), `${folder} builds on ${parent}, which exists`)
    }
  }
})

t.test('every manifest is valid against its Kubernetes or KEDA schema', async t => {
  for (const { file, doc } of all) {
    const model = MODELS[`${doc.apiVersion as string}/${doc.kind as string}`]
    if (model === undefined) {
      t.fail(`${file}: no schema for ${doc.apiVersion as string} ${doc.kind as string}`)
      continue
    }
    t.doesNotThrow(() => model.make(doc).validate(), file)
  }
})

t.test('the schemas are not vacuous: broken manifests are refused', async t => {
  const deployment = structuredClone(find('Deployment', 'chorus-tts'))
  deployment.spec.replicas = 'two'
  t.throws(() => new Deployment(deployment).validate(), 'replicas must be an integer')
  const scaled = structuredClone(find('ScaledObject', 'chorus-tts'))
  delete scaled.spec.scaleTargetRef
  t.throws(() => new ScaledObject(scaled).validate(), 'a ScaledObject needs its target')
})

// One program type-checks every manifest as an object literal of its type:
// an unknown or misspelled field is an excess-property error.
t.test('no manifest has a field its type does not know', async t => {
  const checkFile = join(PACKAGE_ROOT, 'deploy/kubernetes/manifests-typecheck.ts')
  const source = all.map(({ doc }, index) => {
    const [module, type] = MODELS[`${doc.apiVersion as string}/${doc.kind as string}`].type
    return `import type { ${type} as T${index} } from '${module}'\nexport const m${index}: T${index} = ${JSON.stringify(doc)}\n`
  }).join('')
  const options: ts.CompilerOptions = { strict: true, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, skipLibCheck: true, types: [] }
  const host = ts.createCompilerHost(options)
  const { getSourceFile, fileExists, readFile: read } = host
  host.getSourceFile = (name, version, ...rest) => name === checkFile ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, ...rest)
  host.fileExists = name => name === checkFile || fileExists(name)
  host.readFile = name => name === checkFile ? source : read(name)
  const program = ts.createProgram([checkFile], options, host)
  const diagnostics = ts.getPreEmitDiagnostics(program).map(d => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
  t.same(diagnostics, [], 'no type errors')

  // And the check itself catches a misspelling.
  const typo = `import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment'\nexport const d: IDeployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { selector: {}, template: { spec: { containers: [{ name: 'c', readinesProbe: {} }] } } } }\n`
  host.getSourceFile = (name, version, ...rest) => name === checkFile ? ts.createSourceFile(name, typo, version) : getSourceFile(name, version, ...rest)
  const caught = ts.getPreEmitDiagnostics(ts.createProgram([checkFile], options, host))
  t.match(caught.map(d => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n'), /readinesProbe/)
})

t.test('the TTS Deployment: non-root, read-only, probes, graceful stop, voices', async t => {
  const deployment = find('Deployment', 'chorus-tts')
  const config = find('ConfigMap', 'chorus-tts').data
  const pod = deployment.spec.template.spec
  const [container] = pod.containers
  const dockerfile = await readFile(join(PACKAGE_ROOT, 'Dockerfile'), 'utf8')
  t.match(dockerfile, new RegExp(`^USER ${pod.securityContext.runAsUser as number}:${pod.securityContext.runAsGroup as number}$`, 'm'), 'the image\'s user')
  t.equal(pod.securityContext.runAsNonRoot, true)
  t.equal(container.securityContext.readOnlyRootFilesystem, true)
  t.equal(container.securityContext.allowPrivilegeEscalation, false)
  t.equal(container.livenessProbe.httpGet.path, '/health')
  t.equal(container.readinessProbe.httpGet.path, '/ready')
  t.equal(container.ports[0].containerPort, 8995)
  const preStop = Number(container.lifecycle.preStop.exec.command[1])
  t.ok(pod.terminationGracePeriodSeconds > Number(config.TTS_TIMEOUT_SECONDS) + preStop, 'in-flight requests finish before the kill')
  t.ok(container.resources.requests.cpu !== undefined && container.resources.limits.memory !== undefined, 'resources are set')
  t.equal(config.TTS_WORKERS_PER_VOICE, String(container.resources.requests.cpu), 'one worker per requested CPU')
  const voices = container.volumeMounts.find((mount: any) => mount.name === 'voices')
  t.equal(voices.mountPath, config.TTS_VOICE_DIR)
  t.equal(voices.readOnly, true)
  t.equal(config.CHORUS_INSTALL_BUNDLED, '0', 'nothing is copied into a read-only volume')
  t.ok(container.volumeMounts.some((mount: any) => mount.mountPath === '/tmp'), 'a writable /tmp under the read-only root')
  t.equal(find('Deployment', 'chorus-tools').spec.template.spec.containers[0].command[0], '/app/scripts/tools-entrypoint.sh')
})

t.test('Services, the disruption budget and the autoscalers point at the right pods', async t => {
  const labels = (name: string) => find('Deployment', name).spec.template.metadata.labels
  t.same(find('Service', 'chorus-tts').spec.selector, labels('chorus-tts'))
  t.same(find('Service', 'chorus-tts-headless').spec.selector, labels('chorus-tts'))
  t.equal(find('Service', 'chorus-tts-headless').spec.clusterIP, 'None')
  t.same(find('Service', 'chorus-tools').spec.selector, labels('chorus-tools'))
  t.equal(find('Service', 'chorus-tools').spec.ports[0].port, 8999)
  t.same(find('PodDisruptionBudget', 'chorus-tts').spec.selector.matchLabels, labels('chorus-tts'))
  t.equal(find('HorizontalPodAutoscaler', 'chorus-tts').spec.scaleTargetRef.name, 'chorus-tts')
  const scaled = find('ScaledObject', 'chorus-tts')
  t.equal(scaled.spec.scaleTargetRef.name, 'chorus-tts')
  const prometheus = scaled.spec.triggers.find((trigger: any) => trigger.type === 'prometheus')
  t.match(prometheus.metadata.query, /\bchorus_pending_requests\b/)
  // The service's own registry has the gauge the autoscaler reads.
  const zero = (): number => 0
  const metrics = new ServiceMetrics({ pendingRequests: zero, queuedSentences: zero, loadedVoices: zero, cacheBytes: zero, voiceMemory: () => new Map(), voiceMemoryBudget: zero, voiceMemoryUsed: zero, inferencesRunning: zero, inferenceSlotSeconds: zero, inferenceWaitSeconds: zero, engineTasks: () => [], bufferedBytes: zero })
  t.equal(metrics.registry.getSingleMetric('chorus_pending_requests')?.constructor.name, 'Gauge', 'the gauge exists')
  // KEDA makes its own HorizontalPodAutoscaler: two on one Deployment fight.
  t.match(folders.keda.kustomization.patches[0].patch, /\$patch: delete\s+apiVersion: autoscaling\/v2\s+kind: HorizontalPodAutoscaler\s+metadata:\s+name: chorus-tts/)
})

t.test('the Envoy example hashes on the header the service reads', async t => {
  const envoy = parse(await readFile(join(K8S, 'envoy/envoy.yaml'), 'utf8'))
  const route = envoy.static_resources.listeners[0].filter_chains[0].filters[0].typed_config.route_config.virtual_hosts[0].routes.find((r: any) => r.match.prefix === '/').route
  t.same(route.hash_policy, [{ header: { header_name: VOICE_HEADER } }])
  t.ok(Number(route.timeout.replace(/s$/, '')) > Number(find('ConfigMap', 'chorus-tts').data.TTS_TIMEOUT_SECONDS))
  const [cluster] = envoy.static_resources.clusters
  t.equal(cluster.lb_policy, 'RING_HASH')
  t.equal(cluster.health_checks[0].http_health_check.path, '/ready')
  t.equal(cluster.load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address.address, 'chorus-tts-headless')
})

t.test('no secrets in the manifests', async t => {
  for (const { file, doc } of all) {
    const text = JSON.stringify(doc)
    t.notMatch(text, /"(name|key)":"[A-Z_]*(TOKEN|SECRET|PASSWORD)[A-Z_]*","value":/, `${file}: no literal token`)
  }
})
