import detectors from './index.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testLineMarks } from '../../../test/support/line-marks.js';

// The static part reads every fixture's source (the recorded servers' server.mjs too, for the line marks);
// the dynamic part judges the recorded servers (server.mjs + session.json).
const [staticPart, dynamicPart] = detectors;
testDetectorFolder('C-8', [staticPart!], import.meta.url, { skipServerFixtures: true });
testDetectorFolder('C-8', [dynamicPart!], import.meta.url);
testLineMarks('C-8', [staticPart!], import.meta.url);
