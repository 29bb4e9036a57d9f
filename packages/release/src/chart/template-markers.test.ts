import { expect, test } from 'vitest';
import { escapeTemplateText, TemplateMarkers } from './template-markers.ts';

test('scalar markers become template text, whole values unquoted and parts of strings in place', () => {
  const markers = new TemplateMarkers();
  const replicas = markers.scalar('{{ .Values.replicas }}');
  const tag = markers.scalar('{{ .Values.image.tag }}');
  expect(markers.render({ spec: { replicas, image: `ghcr.io/x/y:${tag}`, args: [`--image=x:${tag}`] } })).toBe([
    'spec:',
    '  replicas: {{ .Values.replicas }}',
    '  image: ghcr.io/x/y:{{ .Values.image.tag }}',
    '  args:',
    '    - --image=x:{{ .Values.image.tag }}',
    '',
  ].join('\n'));
});

test('a block marker replaces its line with lines at its indentation', () => {
  const markers = new TemplateMarkers();
  const labels = { app: 'x', [markers.block((indent) => ['{{- with .Values.commonLabels }}', `{{- toYaml . | nindent ${String(indent)} }}`, '{{- end }}'])]: null };
  expect(markers.render({ metadata: { labels, name: 'n' } })).toBe([
    'metadata:',
    '  labels:',
    '    app: x',
    '    {{- with .Values.commonLabels }}',
    '    {{- toYaml . | nindent 4 }}',
    '    {{- end }}',
    '  name: n',
    '',
  ].join('\n'));
});

test('a block marker first in a list item is refused: its line would carry the dash', () => {
  const markers = new TemplateMarkers();
  expect(() => markers.render({ items: [{ [markers.block(() => ['x: 1'])]: null, name: 'a' }] })).toThrow('a block marker is not alone on its line');
});

test('text with {{ is printed as it is by Helm: Prometheus alert templates survive', () => {
  expect(escapeTemplateText('{{ $labels.namespace }}/{{ $value }}')).toBe('{{`{{`}} $labels.namespace }}/{{`{{`}} $value }}');
  expect(escapeTemplateText('no braces')).toBe('no braces');
});
