/** core/v1 PodTemplates: PodSpec defaults, ValidatePodTemplate, and the NAME CONTAINERS IMAGES POD LABELS columns. */
import { path } from '../../../api/field-errors.js';
import type { Printer } from '../../printers/table.js';
import { nameColumn } from '../../printers/table.js';
import { defaultPodTemplate } from './apps-pod-template-defaults.js';
import { type Builtin, builtin } from './common.js';
import { rec } from './core-json.js';
import { validatePodTemplateSpec } from './core-pod-validation.js';
import { column, containerCells, formatLabels } from './groups-columns.js';
import { templateWarnings } from './pod-warnings.js';

export const podTemplatePrinter: Printer = {
  columns: [
    nameColumn,
    column('Containers', 'The names of the containers in the template.'),
    column('Images', 'The images of the containers in the template.'),
    column('Pod Labels', 'The labels pods made from the template get.'),
  ],
  cells(t) {
    const template = rec(t.template);
    const [names, images] = containerCells(template);
    return [t.metadata.name ?? '', names, images, formatLabels(rec(template.metadata).labels)];
  },
};

export function podtemplates(): Builtin {
  return builtin({
    group: '',
    version: 'v1',
    resource: 'podtemplates',
    printer: podTemplatePrinter,
    strategy: {
      warningsOnCreate: (obj) => templateWarnings(obj.template, path('template')),
      warningsOnUpdate: (obj) => templateWarnings(obj.template, path('template')),
      returnDeletedObject: true,
      default: (t) => defaultPodTemplate(t, 'PodTemplate'),
      validate: (t) => validatePodTemplateSpec(t.template, path('template')),
    },
  });
}
